// The SHA-256 (app/hub/sha256.h, used by the download engine and the fixture checks) against FIPS 180-4.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/sha256.h"

namespace snapdoc {
namespace {

std::string sha(const std::string& s) {
    testing::Sha256 h;
    h.update(s.data(), s.size());
    return h.hex();
}

TEST(QuantSha256, KnownDigests) {
    EXPECT_EQ(sha(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // Split updates give the same digest as one (crossing the 64-byte block boundary).
    const std::string long_text(1000, 'a');
    testing::Sha256 h;
    h.update(long_text.data(), 63);
    h.update(long_text.data() + 63, 937);
    EXPECT_EQ(h.hex(), sha(long_text));
}

}  // namespace
}  // namespace snapdoc

// HeadGate::inspect: where a request head ends in the bytes a client has sent so far, as httplib
// will parse it (its head ends at the first line that is exactly "\r\n"), and when it is refused.
#include <gtest/gtest.h>

#include "app/server/head_gate.h"

namespace snapdoc::server {
namespace {

HeadGate::Head inspect(const std::string& bytes, std::size_t& head, HttpLimits limits = {}) {
    return HeadGate::inspect(bytes.data(), bytes.size(), limits, head);
}

TEST(HeadInspect, FindsTheEndOfTheHeadAndLeavesTheBodyInTheSocket) {
    const std::string head = "POST /v1/completions HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\n";
    std::size_t n = 0;
    EXPECT_EQ(inspect(head + "body", n), HeadGate::Head::Complete);
    EXPECT_EQ(n, head.size());
    // A pipelined second request is not part of the first head.
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\n\r\n", n), HeadGate::Head::Complete);
    EXPECT_EQ(n, 18u);
    // A bare-LF header line is skipped by httplib; the head still ends at the "\r\n" line.
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nA: b\n\r\n", n), HeadGate::Head::Complete);
    EXPECT_EQ(n, 23u);
}

TEST(HeadInspect, APartialHeadWaits) {
    std::size_t n = 0;
    EXPECT_EQ(inspect("", n), HeadGate::Head::Incomplete);
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nHost: h\r\n", n), HeadGate::Head::Incomplete);
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nHost: h\r\n\r", n), HeadGate::Head::Incomplete);
    EXPECT_EQ(inspect("GET / HTTP/1.1\n\n", n), HeadGate::Head::Incomplete);  // httplib needs CRLF
}

TEST(HeadInspect, TooManyLinesOrTooManyBytesAreRefused) {
    HttpLimits limits;
    limits.max_header_count = 3;
    limits.max_head_bytes = 64;
    std::size_t n = 0;
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", n, limits), HeadGate::Head::Complete);
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", n, limits), HeadGate::Head::TooManyLines);
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n", n, limits), HeadGate::Head::TooManyLines);
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nA: " + std::string(60, 'x') + "\r\n\r\n", n, limits), HeadGate::Head::TooLarge);
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nA: " + std::string(60, 'x'), n, limits), HeadGate::Head::TooLarge);
    EXPECT_EQ(inspect("GET / HTTP/1.1\r\nA: " + std::string(20, 'x'), n, limits), HeadGate::Head::Incomplete);
}

}  // namespace
}  // namespace snapdoc::server

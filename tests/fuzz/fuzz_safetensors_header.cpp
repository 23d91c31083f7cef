// libFuzzer target: safetensors parsing. The input is used twice: as a whole file, and as the JSON
// header of a file whose length prefix is correct and whose data section is 256 zero bytes (so the
// fuzzer explores the header's JSON without having to keep the prefix consistent). Every tensor
// that parses is viewed and its first and last element read.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/model/mapped_file.h"
#include "engine/model/safetensors_file.h"

namespace {

using namespace snapdoc;

void exercise(const std::string& bytes) {
    try {
        const SafetensorsFile st = SafetensorsFile::parse(MappedFile::from_bytes("fuzz.safetensors", bytes));
        float out[1];
        for (const auto& t : st.tensors()) {
            st.find(t.name);
            try {
                const TensorView v = st.view(t);
                const int64_t n = v.numel();
                if (n == 0) continue;
                const std::size_t esize = v.nbytes / static_cast<std::size_t>(n);
                const auto* p = static_cast<const uint8_t*>(v.data);
                dequantize_row(v.dtype, p, out, 1);
                dequantize_row(v.dtype, p + (static_cast<std::size_t>(n) - 1) * esize, out, 1);
            } catch (const Error&) {
            }
        }
    } catch (const Error&) {
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    exercise(input);
    std::string file(8, '\0');
    const uint64_t len = size;
    std::memcpy(file.data(), &len, 8);
    file += input;
    file.append(256, '\0');
    exercise(file);
    return 0;
}

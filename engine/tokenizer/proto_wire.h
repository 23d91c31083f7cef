// Protobuf wire format (https://protobuf.dev/programming-guides/encoding/), just enough to write and
// read a SentencePiece ModelProto without generated code: Debian's libsentencepiece-dev ships no
// sentencepiece_model.pb.h, and depending on libprotobuf for a handful of fields is not worth it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace snapdoc::proto {

enum class WireType : uint8_t { Varint = 0, Fixed64 = 1, Len = 2, Fixed32 = 5 };

// Appends fields to a byte string. Nested messages are written into their own Writer first and
// added with message() (length-delimited), which is how protobuf itself lays them out.
class Writer {
public:
    void varint_field(uint32_t field, uint64_t value);
    // int32 is sign-extended to 64 bits on the wire, so negative values take 10 bytes.
    void int32_field(uint32_t field, int32_t value);
    void bool_field(uint32_t field, bool value) { varint_field(field, value ? 1 : 0); }
    void float_field(uint32_t field, float value);
    void bytes_field(uint32_t field, std::string_view bytes);
    void message_field(uint32_t field, const Writer& message) { bytes_field(field, message.bytes()); }

    const std::string& bytes() const { return out_; }
    std::string take() { return std::move(out_); }

private:
    void tag(uint32_t field, WireType type);
    void raw_varint(uint64_t value);
    std::string out_;
};

struct Field {
    uint32_t number = 0;
    WireType type = WireType::Varint;
    uint64_t varint = 0;     // Varint
    uint64_t fixed = 0;      // Fixed32 / Fixed64 (raw bits)
    std::string_view data;   // Len: the payload (a string, bytes or a nested message)
    std::string_view whole;  // the complete encoded field, tag included (for copying it verbatim)

    float as_float() const;
    int32_t as_int32() const { return static_cast<int32_t>(static_cast<uint32_t>(varint)); }
};

// Iterates over the fields of one message. Throws FormatError on truncated or malformed input
// (bad varint, length past the end, deprecated group wire types, field number 0).
class Reader {
public:
    explicit Reader(std::string_view message) : data_(message) {}
    // Reads the next field into `field`; false at the end of the message.
    bool next(Field& field);

private:
    uint64_t read_varint();
    std::string_view data_;
    std::size_t pos_ = 0;
};

}  // namespace snapdoc::proto

#include "engine/tokenizer/proto_wire.h"

#include <bit>

#include "engine/common/error.h"

namespace snapdoc::proto {

void Writer::raw_varint(uint64_t value) {
    while (value >= 0x80) {
        out_.push_back(static_cast<char>((value & 0x7F) | 0x80));
        value >>= 7;
    }
    out_.push_back(static_cast<char>(value));
}

void Writer::tag(uint32_t field, WireType type) {
    raw_varint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(type));
}

void Writer::varint_field(uint32_t field, uint64_t value) {
    tag(field, WireType::Varint);
    raw_varint(value);
}

void Writer::int32_field(uint32_t field, int32_t value) {
    varint_field(field, static_cast<uint64_t>(static_cast<int64_t>(value)));
}

void Writer::float_field(uint32_t field, float value) {
    tag(field, WireType::Fixed32);
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));  // little endian
}

void Writer::bytes_field(uint32_t field, std::string_view bytes) {
    tag(field, WireType::Len);
    raw_varint(bytes.size());
    out_.append(bytes);
}

float Field::as_float() const { return std::bit_cast<float>(static_cast<uint32_t>(fixed)); }

uint64_t Reader::read_varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos_ >= data_.size()) throw FormatError("protobuf: truncated varint");
        const auto byte = static_cast<uint8_t>(data_[pos_++]);
        value |= static_cast<uint64_t>(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) return value;
    }
    throw FormatError("protobuf: varint longer than 10 bytes");
}

bool Reader::next(Field& field) {
    if (pos_ >= data_.size()) return false;
    const std::size_t start = pos_;
    const uint64_t key = read_varint();
    field = Field{};
    if ((key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF) throw FormatError("protobuf: invalid field number");
    field.number = static_cast<uint32_t>(key >> 3);
    const auto type = static_cast<uint32_t>(key & 7);
    auto take_fixed = [&](std::size_t n) {
        if (data_.size() - pos_ < n) throw FormatError("protobuf: truncated fixed-width field");
        uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
        pos_ += n;
        return v;
    };
    switch (type) {
        case 0:
            field.type = WireType::Varint;
            field.varint = read_varint();
            break;
        case 1:
            field.type = WireType::Fixed64;
            field.fixed = take_fixed(8);
            break;
        case 2: {
            field.type = WireType::Len;
            const uint64_t len = read_varint();
            if (len > data_.size() - pos_) throw FormatError("protobuf: length-delimited field runs past the end");
            field.data = data_.substr(pos_, static_cast<std::size_t>(len));
            pos_ += static_cast<std::size_t>(len);
            break;
        }
        case 5:
            field.type = WireType::Fixed32;
            field.fixed = take_fixed(4);
            break;
        default:
            // 3/4 are the deprecated group markers; nothing SentencePiece writes uses them.
            throw FormatError("protobuf: unsupported wire type " + std::to_string(type));
    }
    field.whole = data_.substr(start, pos_ - start);
    return true;
}

}  // namespace snapdoc::proto

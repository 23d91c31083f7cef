#include "app/eval/png.h"

#include <array>

#include "engine/common/atomic_file.h"
#include "engine/common/error.h"

namespace snapdoc::eval {
namespace {

std::array<uint32_t, 256> make_crc_table() {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
        uint32_t c = n;
        for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        t[n] = c;
    }
    return t;
}

void put_be32(std::string& out, uint32_t v) {
    out += static_cast<char>(v >> 24);
    out += static_cast<char>(v >> 16);
    out += static_cast<char>(v >> 8);
    out += static_cast<char>(v);
}

std::span<const uint8_t> bytes(const std::string& s) {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

void chunk(std::string& png, const char type[4], const std::string& data) {
    put_be32(png, static_cast<uint32_t>(data.size()));
    std::string body(type, 4);
    body += data;
    png += body;
    put_be32(png, crc32(bytes(body)));
}

}  // namespace

uint32_t crc32(std::span<const uint8_t> data, uint32_t crc) {
    static const std::array<uint32_t, 256> table = make_crc_table();
    uint32_t c = crc ^ 0xFFFFFFFFu;
    for (uint8_t b : data) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

uint32_t adler32(std::span<const uint8_t> data) {
    uint32_t a = 1, b = 0;
    for (uint8_t x : data) {
        a = (a + x) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

std::string zlib_stored(std::span<const uint8_t> data) {
    std::string out;
    out += static_cast<char>(0x78);  // CMF: deflate, 32K window
    out += static_cast<char>(0x01);  // FLG: no dictionary, fastest; (0x78 << 8 | 0x01) % 31 == 0
    std::size_t pos = 0;
    do {
        const std::size_t n = std::min<std::size_t>(65535, data.size() - pos);
        const bool last = pos + n == data.size();
        out += static_cast<char>(last ? 1 : 0);  // BFINAL, BTYPE=00 (stored)
        out += static_cast<char>(n & 0xFF);
        out += static_cast<char>(n >> 8);
        out += static_cast<char>(~n & 0xFF);
        out += static_cast<char>((~n >> 8) & 0xFF);
        out.append(reinterpret_cast<const char*>(data.data() + pos), n);
        pos += n;
    } while (pos < data.size());
    put_be32(out, adler32(data));
    return out;
}

std::string encode_png_rgb(int width, int height, std::span<const uint8_t> rgb) {
    if (width < 1 || height < 1) throw Error("PNG image must be at least 1x1");
    const std::size_t row = static_cast<std::size_t>(width) * 3;
    if (rgb.size() != row * static_cast<std::size_t>(height))
        throw Error("PNG pixel buffer has " + std::to_string(rgb.size()) + " bytes for " + std::to_string(width) + "x" +
                    std::to_string(height));
    std::string raw;
    raw.reserve((row + 1) * static_cast<std::size_t>(height));
    for (int y = 0; y < height; ++y) {
        raw += '\0';  // filter: none
        raw.append(reinterpret_cast<const char*>(rgb.data() + row * static_cast<std::size_t>(y)), row);
    }
    std::string png("\x89PNG\r\n\x1a\n", 8);
    std::string ihdr;
    put_be32(ihdr, static_cast<uint32_t>(width));
    put_be32(ihdr, static_cast<uint32_t>(height));
    ihdr += static_cast<char>(8);  // bit depth
    ihdr += static_cast<char>(2);  // colour type: RGB
    ihdr += std::string(3, '\0');  // compression, filter, interlace
    chunk(png, "IHDR", ihdr);
    chunk(png, "IDAT", zlib_stored(bytes(raw)));
    chunk(png, "IEND", {});
    return png;
}

RgbImage::RgbImage(int w, int h, uint8_t gray)
    : width(w), height(h), pixels(static_cast<std::size_t>(w) * h * 3, static_cast<char>(gray)) {}

void RgbImage::set(int x, int y, uint8_t r, uint8_t g, uint8_t b) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const std::size_t i = (static_cast<std::size_t>(y) * width + x) * 3;
    pixels[i] = static_cast<char>(r);
    pixels[i + 1] = static_cast<char>(g);
    pixels[i + 2] = static_cast<char>(b);
}

void RgbImage::fill_rect(int x, int y, int w, int h, uint8_t r, uint8_t g, uint8_t b) {
    for (int yy = y; yy < y + h; ++yy)
        for (int xx = x; xx < x + w; ++xx) set(xx, yy, r, g, b);
}

std::string RgbImage::png() const { return encode_png_rgb(width, height, bytes(pixels)); }

void write_png(const std::filesystem::path& path, const RgbImage& image) {
    AtomicFileWriter f(path);
    f.write(image.png());
    f.commit();
}

}  // namespace snapdoc::eval

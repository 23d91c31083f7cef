// A minimal PNG writer (8-bit RGB, no compression: zlib stored blocks) for evaluation heatmaps,
// so the CLI needs no image library. The checksums are exposed for tests.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace snapdoc::eval {

uint32_t crc32(std::span<const uint8_t> data, uint32_t crc = 0);  // PNG/zlib CRC-32 (chain with `crc`)
uint32_t adler32(std::span<const uint8_t> data);

// A zlib stream (RFC 1950) of `data` in stored (uncompressed) deflate blocks.
std::string zlib_stored(std::span<const uint8_t> data);

// PNG file bytes for `rgb` (width * height * 3 bytes, rows top to bottom).
std::string encode_png_rgb(int width, int height, std::span<const uint8_t> rgb);

struct RgbImage {
    int width = 0, height = 0;
    std::string pixels;  // width * height * 3
    RgbImage(int w, int h, uint8_t gray = 255);
    void set(int x, int y, uint8_t r, uint8_t g, uint8_t b);
    void fill_rect(int x, int y, int w, int h, uint8_t r, uint8_t g, uint8_t b);
    std::string png() const;
};

// Writes the file atomically (a temporary next to it, then rename).
void write_png(const std::filesystem::path& path, const RgbImage& image);

}  // namespace snapdoc::eval

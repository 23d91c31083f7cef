// The evaluation's PNG writer (app/eval/png.h) decoded by an independent reader here: signature,
// chunk CRCs, IHDR, the zlib stream (header, stored blocks, Adler-32) and the pixels themselves;
// and the heatmap renderer's geometry and colours.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "app/eval/heatmap.h"
#include "app/eval/png.h"

namespace snapdoc::eval {
namespace {

std::span<const uint8_t> bytes(const std::string& s) { return {reinterpret_cast<const uint8_t*>(s.data()), s.size()}; }

uint32_t be32(const std::string& s, std::size_t at) {
    return (static_cast<uint32_t>(static_cast<uint8_t>(s[at])) << 24) |
           (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 1])) << 16) |
           (static_cast<uint32_t>(static_cast<uint8_t>(s[at + 2])) << 8) | static_cast<uint8_t>(s[at + 3]);
}

struct Decoded {
    int width = 0, height = 0;
    std::string rgb;
    int idat_blocks = 0;
};

// A reader for exactly what a PNG writer with stored deflate blocks may produce; fails the test on
// any inconsistency.
Decoded decode(const std::string& png) {
    Decoded out;
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    std::size_t pos = 8;
    std::string idat;
    std::vector<std::string> types;
    while (pos + 12 <= png.size()) {
        const uint32_t len = be32(png, pos);
        const std::string type = png.substr(pos + 4, 4);
        const std::string data = png.substr(pos + 8, len);
        const uint32_t crc = be32(png, pos + 8 + len);
        EXPECT_EQ(crc, crc32(bytes(png.substr(pos + 4, 4 + len)))) << "CRC of chunk " << type;
        types.push_back(type);
        if (type == "IHDR") {
            EXPECT_EQ(len, 13u);
            out.width = static_cast<int>(be32(data, 0));
            out.height = static_cast<int>(be32(data, 4));
            EXPECT_EQ(data[8], 8);   // bit depth
            EXPECT_EQ(data[9], 2);   // RGB
            EXPECT_EQ(data[10], 0);
            EXPECT_EQ(data[11], 0);
            EXPECT_EQ(data[12], 0);
        } else if (type == "IDAT") {
            idat += data;
        }
        pos += 12 + len;
    }
    EXPECT_EQ(pos, png.size());
    EXPECT_EQ(types.front(), "IHDR");
    EXPECT_EQ(types.back(), "IEND");
    // zlib: header, stored blocks, Adler-32 of the inflated data.
    EXPECT_GE(idat.size(), 6u);
    const auto cmf = static_cast<uint8_t>(idat[0]), flg = static_cast<uint8_t>(idat[1]);
    EXPECT_EQ(cmf & 0x0F, 8);                 // deflate
    EXPECT_EQ((cmf * 256 + flg) % 31, 0);     // header check
    EXPECT_EQ(flg & 0x20, 0);                 // no preset dictionary
    std::string raw;
    std::size_t p = 2;
    for (bool final = false; !final;) {
        const auto hdr = static_cast<uint8_t>(idat[p]);
        final = hdr & 1;
        EXPECT_EQ((hdr >> 1) & 3, 0) << "only stored blocks expected";
        const unsigned len = static_cast<uint8_t>(idat[p + 1]) | (static_cast<uint8_t>(idat[p + 2]) << 8);
        const unsigned nlen = static_cast<uint8_t>(idat[p + 3]) | (static_cast<uint8_t>(idat[p + 4]) << 8);
        EXPECT_EQ(len ^ 0xFFFFu, nlen);
        raw += idat.substr(p + 5, len);
        p += 5 + len;
        out.idat_blocks++;
    }
    EXPECT_EQ(p + 4, idat.size());
    EXPECT_EQ(be32(idat, p), adler32(bytes(raw)));
    // Scanlines: filter byte 0, then RGB.
    const std::size_t row = static_cast<std::size_t>(out.width) * 3;
    EXPECT_EQ(raw.size(), (row + 1) * static_cast<std::size_t>(out.height));
    for (int y = 0; y < out.height; ++y) {
        EXPECT_EQ(raw[static_cast<std::size_t>(y) * (row + 1)], 0);
        out.rgb += raw.substr(static_cast<std::size_t>(y) * (row + 1) + 1, row);
    }
    return out;
}

TEST(EvalPng, ChecksumsMatchKnownValues) {
    EXPECT_EQ(crc32(bytes("123456789")), 0xCBF43926u);
    EXPECT_EQ(crc32(bytes("")), 0u);
    EXPECT_EQ(adler32(bytes("Wikipedia")), 0x11E60398u);
    EXPECT_EQ(adler32(bytes("")), 1u);
    // Chained CRC equals the CRC of the concatenation.
    EXPECT_EQ(crc32(bytes("6789"), crc32(bytes("12345"))), 0xCBF43926u);
}

TEST(EvalPng, SmallImageRoundTrips) {
    const std::string rgb = {'\xff', 0, 0, 0, '\xff', 0, 0, 0, '\xff', 1, 2, 3, 4, 5, 6, 7, 8, 9};
    const Decoded d = decode(encode_png_rgb(3, 2, bytes(rgb)));
    EXPECT_EQ(d.width, 3);
    EXPECT_EQ(d.height, 2);
    EXPECT_EQ(d.rgb, rgb);
    EXPECT_EQ(d.idat_blocks, 1);
}

TEST(EvalPng, LargeImageUsesSeveralStoredBlocks) {
    RgbImage img(300, 200);  // 180,200 bytes of scanlines > 65,535
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            img.set(x, y, static_cast<uint8_t>(x), static_cast<uint8_t>(y), static_cast<uint8_t>(x ^ y));
    const Decoded d = decode(img.png());
    EXPECT_EQ(d.width, 300);
    EXPECT_EQ(d.height, 200);
    EXPECT_EQ(d.rgb, img.pixels);
    EXPECT_EQ(d.idat_blocks, 3);
}

TEST(EvalPng, RejectsBadSizes) {
    const std::string rgb(5, '\0');
    EXPECT_ANY_THROW(encode_png_rgb(2, 1, bytes(rgb)));
    EXPECT_ANY_THROW(encode_png_rgb(0, 1, bytes(std::string())));
}

TEST(EvalHeatmap, CellsAreColouredByAccuracy) {
    HeatmapSpec spec;
    spec.title = "TEST";
    spec.col_labels = {"512", "1024"};
    spec.row_labels = {"0%", "100%"};
    spec.values = {1.0, 0.0, 0.5, std::nan("")};
    const RgbImage img = render_heatmap(spec);
    const Decoded d = decode(img.png());
    ASSERT_EQ(d.width, img.width);
    ASSERT_EQ(d.rgb, img.pixels);
    // Count pixels of each accuracy colour: every cell shows its colour (minus the digits drawn on it).
    auto count = [&](double v) {
        uint8_t r, g, b;
        accuracy_color(v, r, g, b);
        int n = 0;
        for (std::size_t i = 0; i + 2 < img.pixels.size(); i += 3)
            n += static_cast<uint8_t>(img.pixels[i]) == r && static_cast<uint8_t>(img.pixels[i + 1]) == g &&
                 static_cast<uint8_t>(img.pixels[i + 2]) == b;
        return n;
    };
    EXPECT_GT(count(1.0), 800);
    EXPECT_GT(count(0.0), 800);
    EXPECT_GT(count(0.5), 800);
    spec.values.pop_back();
    EXPECT_ANY_THROW(render_heatmap(spec));
}

TEST(EvalHeatmap, TextIsDrawn) {
    RgbImage img(40, 10);
    EXPECT_EQ(text_width("AB"), 11);
    draw_text(img, 1, 1, "A1");
    int ink = 0;
    for (char c : img.pixels) ink += c == 0;
    EXPECT_GT(ink, 3 * 10);
}

}  // namespace
}  // namespace snapdoc::eval

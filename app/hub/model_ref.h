// How people name a hub model on the command line and in the app, in llama.cpp's idiom:
//   hf://owner/name            the default quantization (see pick_choice)
//   hf://owner/name:Q4_K_M     a quantization
//   owner/name[:QUANT]         the same, where a flag already says it is a hub repo (--hf-repo, pull)
//   owner/name FILE            one file (or the shard set it belongs to): `pull REPO FILE`, --hf-file
//   https://huggingface.co/owner/name[/blob/REV/FILE]   a page address from the browser (hub_page_url.h)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace snapdoc::hub {

struct ModelRef {
    std::string repo;               // "owner/name", checked by check_repo_id
    std::string quant;              // "" = default pick
    std::string file;               // "" = choose by quant
    std::string revision;           // "" = main ("owner/name@rev" is accepted too)
    std::string to_string() const;  // "owner/name:Q4_K_M" / "owner/name file"
};

inline constexpr std::string_view kHfScheme = "hf://";
bool is_hf_uri(std::string_view text);  // starts with hf://

// "owner/name[@revision][:QUANT]" with or without hf://, or a hub page address. Throws Error on a
// malformed id.
ModelRef parse_model_ref(std::string_view text);
// REPO (with optional :QUANT) and an explicit FILE path in it.
ModelRef parse_model_ref(std::string_view repo, std::string_view file);

}  // namespace snapdoc::hub

// The model catalogue (resources/models/catalogue.json, compiled into the program): instruct models
// known to load in snapdoc, with their hub repository, the file(s) of each quantization, and the
// shape the fit estimate needs (fit_estimate.h). How each entry was checked: docs/models.md, "The
// model catalogue". Qt-free: the CLI and the app read the same entries.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/model_config.h"

namespace snapdoc::hub {

// One quantization of a model: a single GGUF, or the shards of a split set in order
// (`…-00001-of-00003.gguf`, …), which download together and load as one model.
struct CatalogueFile {
    std::string quant;               // "Q4_K_M", "Q8_0", ...
    std::vector<std::string> files;  // paths inside the repository
    std::optional<int64_t> bytes;    // all shards together, when known (else estimated from the quant)
};

struct CatalogueEntry {
    std::string id;    // stable key, e.g. "llama-3.1-8b-instruct"
    std::string name;  // "Llama 3.1 8B Instruct"
    std::string repo;  // "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"
    std::string revision = "main";
    int64_t parameters = 0;            // counted from the shape (embeddings once when tied)
    std::string parameters_published;  // the model card's figure, "8.03B"
    ModelConfig shape;  // architecture, layers, dim, heads, kv heads, head dim, ffn, vocab, context
    std::string licence;
    bool gated = false;         // the repository asks for a token and licence acceptance
    std::string chat_template;  // the template snapdoc detects in these files
    std::string fixture;  // the modelzoo fixture of the same family (../shared/fixtures/modelzoo/<fixture>)
    std::vector<CatalogueFile> files;
    std::string note;

    const CatalogueFile* find_quant(std::string_view quant) const;  // case-insensitive; null if absent
};

struct Catalogue {
    std::vector<CatalogueEntry> models;
    const CatalogueEntry* find(std::string_view id) const;
};

// Parses a catalogue document. Throws FormatError "<source>: models[3] (qwen3-8b): shape.heads must
// be a positive integer" naming the entry and the field for every schema error.
Catalogue parse_catalogue(std::string_view json_text, const std::string& source);
// The catalogue compiled into this program (resources/models/catalogue.json).
const Catalogue& builtin_catalogue();
// A catalogue file (e.g. a newer one beside the program); bounded read, same checks.
Catalogue load_catalogue(const std::filesystem::path& file);

// Weights in bytes of a file of `quant` for a model of `parameters`, when the real size is not
// known: llama.cpp's mixes average about 4.85 bits per weight for Q4_K_M, 8.5 for Q8_0 (its
// blocks: 34 bytes per 32 weights), ... Unknown quantization names give nullopt.
std::optional<int64_t> estimated_quant_bytes(std::string_view quant, int64_t parameters);
// The file's size as listed, else the estimate; 0 when neither is known.
int64_t weight_bytes_of(const CatalogueEntry& entry, const CatalogueFile& file);

}  // namespace snapdoc::hub

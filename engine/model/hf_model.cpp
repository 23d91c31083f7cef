// Hugging Face folder -> Model for the families in architecture.h. Q/K rows are in the
// checkpoint's own (rotate-half) order, so the config says RopeStyle::RotateHalf and nothing is
// permuted; tensor names and optional parts come from the family's description.
#include "engine/model/hf_model.h"

#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "engine/common/json_input.h"
#include "engine/model/architecture.h"
#include "engine/model/hf_config.h"
#include "engine/model/read_file.h"
#include "engine/model/safetensors_checkpoint.h"
#include "engine/model/special_tokens.h"
#include "engine/model/weight_checks.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/hf_tokenizer_json.h"

namespace snapdoc {

namespace {

using nlohmann::json;

// chat_template from tokenizer_config.json: a string, or a list of {name, template} of which the
// one named "default" is used.
std::string read_chat_template(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) return "";
    const std::string what = "'" + file.string() + "'";
    const json root = parse_json_input(read_small_file(file, std::size_t{64} << 20), what + " is ");
    if (!root.is_object()) throw FormatError(what + " is not a JSON object");
    const auto it = root.find("chat_template");
    if (it == root.end() || it->is_null()) return "";
    if (it->is_string()) return it->get<std::string>();
    if (it->is_array()) {
        for (const json& entry : *it) {
            if (!entry.is_object()) throw FormatError(what + ": 'chat_template' list entries must be objects");
            const auto name = entry.find("name");
            const auto tmpl = entry.find("template");
            if (name != entry.end() && name->is_string() && name->get<std::string>() == "default") {
                if (tmpl == entry.end() || !tmpl->is_string()) {
                    throw FormatError(what + ": the 'default' chat template has no 'template' string");
                }
                return tmpl->get<std::string>();
            }
        }
        return "";
    }
    throw FormatError(what + ": 'chat_template' must be a string or a list of {name, template}");
}

// The folder's tokenizer: tokenizer.model (SentencePiece) when there is one, else tokenizer.json
// (byte-level BPE, or SentencePiece-style BPE mapped onto a ModelProto). A broken tokenizer file
// leaves the weights usable; the reason goes to tokenizer_error.
void load_hf_tokenizer(Model& m, const std::filesystem::path& dir) {
    std::error_code ec;
    const auto config_path = dir / "tokenizer_config.json";
    std::string config_text;
    if (std::filesystem::exists(config_path, ec)) config_text = read_small_file(config_path, std::size_t{64} << 20);
    if (!config_text.empty()) {
        try {
            const json config = parse_json_input(config_text, "tokenizer_config.json: ");
            if (const auto it = config.find("add_bos_token"); it != config.end() && it->is_boolean())
                m.tokenizer_add_bos = it->get<bool>();
            if (const auto it = config.find("add_eos_token"); it != config.end() && it->is_boolean())
                m.tokenizer_add_eos = it->get<bool>();
        } catch (const FormatError&) {
            // read_chat_template reports a malformed tokenizer_config.json.
        }
    }
    const auto tok_path = dir / "tokenizer.model";
    const auto json_path = dir / "tokenizer.json";
    if (std::filesystem::exists(tok_path, ec)) {
        m.tokenizer_proto = read_small_file(tok_path);
    } else if (std::filesystem::exists(json_path, ec)) {
        try {
            HfTokenizerJson t = parse_hf_tokenizer_json(read_small_file(json_path, std::size_t{256} << 20), config_text);
            // Built (and so checked) now: a broken file is reported at load.
            std::shared_ptr<const BpeTokenizer> bpe;
            if (t.bpe) bpe = std::make_shared<const BpeTokenizer>(*t.bpe);
            const int n_tokens = bpe ? bpe->vocab_size() : 0;
            if (n_tokens > m.config.vocab_size) {  // ids past the embedding rows would be out of range
                throw FormatError("the tokenizer has " + std::to_string(n_tokens) +
                                  " tokens but the model's vocabulary is " + std::to_string(m.config.vocab_size));
            }
            m.tokenizer_bpe = std::move(bpe);
            m.tokenizer_proto = std::move(t.spm_proto);
            if (!m.tokenizer_add_bos) m.tokenizer_add_bos = t.add_bos;
            if (!m.tokenizer_add_eos) m.tokenizer_add_eos = t.add_eos;
        } catch (const FormatError& e) {
            m.tokenizer_error = "'" + json_path.string() + "': " + e.what();
        }
    } else {
        m.tokenizer_error = "no tokenizer.model in '" + dir.string() + "' (and no tokenizer.json)";
    }
}

}  // namespace

Model load_hf_model(const std::filesystem::path& dir) {
    std::error_code ec;
    const auto config_path = dir / "config.json";
    if (!std::filesystem::exists(config_path, ec)) {
        throw FormatError("'" + dir.string() + "' is not a Hugging Face model folder: it has no config.json");
    }
    const std::string source = "Hugging Face model '" + dir.string() + "'";

    Model m;
    m.format = ModelFormat::HuggingFace;
    m.path = dir;
    const HfConfig hf = load_hf_config(config_path);
    m.config = hf.config;
    if (m.config.name.empty()) m.config.name = dir.filename().string();

    const SafetensorsCheckpoint ck = SafetensorsCheckpoint::open_folder(dir);
    m.mappings = ck.mappings();
    const ModelConfig& c = m.config;
    std::vector<std::string> used;
    gather_weights(
        m, *hf.arch, hf.arch->hf,
        [&](const std::string& name) -> std::optional<TensorView> {
            const SafetensorsFile* file = nullptr;
            const SafetensorsFile::TensorInfo* info = ck.find(name, &file);
            if (info == nullptr) return std::nullopt;
            used.push_back(name);
            return file->view(*info);
        },
        c.tied_embeddings, source);
    std::vector<std::string> all;
    for (const SafetensorsFile& f : ck.files())
        for (const auto& t : f.tensors()) all.push_back(t.name);
    // A tied checkpoint may still store lm_head.weight (a copy of the embeddings): not a missing part.
    if (c.tied_embeddings) used.emplace_back(hf.arch->hf.output);
    warn_unused_tensors(source, all, used);

    load_hf_tokenizer(m, dir);
    m.chat_template = read_chat_template(dir / "tokenizer_config.json");
    m.config.end_of_generation_ids = hf_end_of_generation_ids(dir, m.config);
    return m;
}

}  // namespace snapdoc

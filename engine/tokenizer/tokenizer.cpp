#include "engine/tokenizer/tokenizer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/model/model.h"
#include "engine/tokenizer/bpe_tokenizer.h"
#include "engine/tokenizer/hf_tokenizer_json.h"
#include "engine/tokenizer/spm_tokenizer.h"
#include "engine/tokenizer/utf8.h"

namespace snapdoc {
namespace {

std::string read_whole_file(const std::string& path) {
    return read_regular_file(path, std::size_t{256} << 20, "tokenizer file");
}

void check_id(int32_t id, int vocab_size) {
    if (id < 0 || id >= vocab_size)
        throw Error("token id " + std::to_string(id) + " is outside the " + std::to_string(vocab_size) +
                    "-piece vocabulary");
}

}  // namespace

Tokenizer::Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

Tokenizer Tokenizer::from_serialized_proto(const std::string& proto) {
    Tokenizer tok;
    tok.spm_ = std::make_unique<SpmTokenizer>(proto);
    // llama.cpp's default for SentencePiece vocabularies: prompts start with BOS.
    tok.add_bos_ = tok.spm_->bos_id() >= 0;
    return tok;
}

Tokenizer Tokenizer::from_bpe_vocab(const BpeVocab& vocab) {
    return from_bpe(std::make_shared<const BpeTokenizer>(vocab));
}

Tokenizer Tokenizer::from_bpe(std::shared_ptr<const BpeTokenizer> bpe) {
    if (!bpe) throw FormatError("no byte-level BPE vocabulary");
    Tokenizer tok;
    tok.bpe_ = std::move(bpe);
    tok.add_bos_ = tok.bpe_->add_bos();
    tok.add_eos_ = tok.bpe_->add_eos();
    return tok;
}

Tokenizer Tokenizer::from_file(const std::string& path) {
    const std::string bytes = read_whole_file(path);
    try {
        if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
            // tokenizer_config.json next to it names BOS/EOS and whether they are added.
            const std::filesystem::path config = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
            std::error_code ec;
            const std::string config_text = std::filesystem::exists(config, ec) ? read_whole_file(config.string()) : "";
            const HfTokenizerJson hf = parse_hf_tokenizer_json(bytes, config_text);
            Tokenizer tok = hf.bpe ? from_bpe_vocab(*hf.bpe) : from_serialized_proto(hf.spm_proto);
            if (hf.add_bos) tok.add_bos_ = *hf.add_bos;
            if (hf.add_eos) tok.add_eos_ = *hf.add_eos;
            return tok;
        }
        return from_serialized_proto(bytes);
    } catch (const FormatError& e) {
        throw FormatError("'" + path + "': " + e.what());
    }
}

Tokenizer Tokenizer::from_model(const Model& model) {
    if (!model.has_tokenizer()) {
        const std::string reason =
            model.tokenizer_error.empty() ? "the file carries no tokenizer" : model.tokenizer_error;
        throw FormatError("model '" + model.path.string() + "' has no usable tokenizer: " + reason);
    }
    try {
        Tokenizer tok = model.tokenizer_bpe ? from_bpe(model.tokenizer_bpe)
                                            : from_serialized_proto(model.tokenizer_proto);
        if (model.tokenizer_add_bos) tok.add_bos_ = *model.tokenizer_add_bos && tok.bos_id() >= 0;
        if (model.tokenizer_add_eos) tok.add_eos_ = *model.tokenizer_add_eos && tok.eos_id() >= 0;
        return tok;
    } catch (const FormatError& e) {
        throw FormatError("model '" + model.path.string() + "': " + e.what());
    }
}

bool Tokenizer::adds_dummy_prefix() const {
    return spm_ && spm_->adds_dummy_prefix();
}
bool Tokenizer::encodes_in_chunks() const {
    return bpe_ ? true : spm_->encodes_in_chunks();
}

void Tokenizer::set_max_encode_threads(unsigned n) {
    if (bpe_) {
        max_threads_ = n == 0 ? 1 : n;
    } else {
        spm_->set_max_threads(n);
    }
}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
    if (text.empty()) return {};
    std::string sanitized;
    if (!utf8::is_valid(text)) {
        sanitized = utf8::sanitize(text);
        text = sanitized;
    }
    return bpe_ ? bpe_->encode(text, max_threads_) : spm_->encode(text);
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
    if (!bpe_) return spm_->decode(ids);
    std::string bytes;
    for (int32_t id : ids) {
        check_id(id, bpe_->vocab_size());
        bytes += bpe_->token_bytes(id);
    }
    return utf8::is_valid(bytes) ? bytes : utf8::sanitize(bytes);
}

std::string Tokenizer::piece(int32_t id) const {
    if (!bpe_) return spm_->piece(id);
    check_id(id, bpe_->vocab_size());
    return bpe_->token_bytes(id);
}

std::string Tokenizer::raw_piece(int32_t id) const {
    if (!bpe_) return spm_->raw_piece(id);
    return id >= 0 && id < bpe_->vocab_size() ? bpe_->raw_piece(id) : std::string();
}

int Tokenizer::max_input_bytes_per_token() const {
    if (!bpe_) return spm_->max_input_bytes_per_token();
    // Byte-level BPE: a token is exactly its bytes of the (sanitized, never shorter) input.
    std::size_t longest = 4;  // an unknown token stands for one character
    for (int32_t id = 0; id < bpe_->vocab_size(); ++id) longest = std::max(longest, bpe_->token_bytes(id).size());
    return static_cast<int>(std::min<std::size_t>(longest, 1 << 20));
}

int Tokenizer::vocab_size() const {
    return bpe_ ? bpe_->vocab_size() : spm_->vocab_size();
}
int Tokenizer::bos_id() const {
    return bpe_ ? bpe_->bos_id() : spm_->bos_id();
}
int Tokenizer::eos_id() const {
    return bpe_ ? bpe_->eos_id() : spm_->eos_id();
}
int Tokenizer::unk_id() const {
    return bpe_ ? bpe_->unk_id() : spm_->unk_id();
}
bool Tokenizer::is_control(int32_t id) const {
    return bpe_ ? bpe_->is_control(id) : spm_->is_control(id);
}
int32_t Tokenizer::piece_to_id(std::string_view piece) const {
    return bpe_ ? bpe_->piece_to_id(piece) : spm_->piece_to_id(piece);
}

}  // namespace snapdoc

#include "app/hub/catalogue.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "app/hub/catalogue_data.h"
#include "engine/common/error.h"
#include "engine/common/input_file.h"
#include "engine/common/json_input.h"
#include "engine/model/architecture.h"
#include "engine/tokenizer/chat_template.h"

namespace snapdoc::hub {

namespace {

using nlohmann::json;

bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

// Reads one entry's fields; every failure names the entry and the field.
class EntryReader {
public:
    EntryReader(const json& j, std::string where) : j_(j), where_(std::move(where)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw FormatError(where_ + ": " + field + " " + what);
    }
    const json& member(const json& obj, const std::string& field, const std::string& name) const {
        const auto it = obj.find(name);
        if (it == obj.end()) fail(field, "is missing");
        return *it;
    }
    std::string text(const std::string& name, bool required = true) const {
        if (!j_.contains(name)) {
            if (required) fail(name, "is missing");
            return {};
        }
        const json& v = j_.at(name);
        if (!v.is_string() || (required && v.get_ref<const std::string&>().empty()))
            fail(name, "must be a non-empty string");
        return v.get<std::string>();
    }
    int64_t positive(const json& obj, const std::string& prefix, const std::string& name, int64_t max) const {
        const std::string field = prefix + name;
        const json& v = member(obj, field, name);
        if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > max)
            fail(field, "must be a positive integer (at most " + std::to_string(max) + ")");
        return v.get<int64_t>();
    }
    bool flag(const json& obj, const std::string& field, const std::string& name) const {
        const json& v = member(obj, field, name);
        if (!v.is_boolean()) fail(field, "must be true or false");
        return v.get<bool>();
    }
    const json& j() const { return j_; }

private:
    const json& j_;
    std::string where_;
};

constexpr int64_t kMaxDim = int64_t{1} << 20;

ModelConfig read_shape(const EntryReader& r) {
    const json& s = r.member(r.j(), "shape", "shape");
    if (!s.is_object()) r.fail("shape", "must be an object");
    ModelConfig c;
    c.architecture = r.text("architecture");
    if (find_gguf_architecture(c.architecture) == nullptr)
        r.fail("architecture", "'" + c.architecture + "' is not one snapdoc loads (" + supported_gguf_architectures() + ")");
    const auto dim = [&](const char* name) { return static_cast<int>(r.positive(s, "shape.", name, kMaxDim)); };
    c.n_layers = dim("layers");
    c.dim = dim("dim");
    c.n_heads = dim("heads");
    c.n_kv_heads = dim("kv_heads");
    c.head_dim = dim("head_dim");
    c.ffn_dim = dim("ffn");
    c.vocab_size = dim("vocab");
    c.tied_embeddings = r.flag(s, "shape.tied_embeddings", "tied_embeddings");
    c.context_length = static_cast<int>(r.positive(r.j(), "", "context_length", int64_t{1} << 24));
    if (c.n_heads % c.n_kv_heads != 0)
        r.fail("shape.kv_heads", std::to_string(c.n_kv_heads) + " must divide shape.heads " + std::to_string(c.n_heads));
    if (c.head_dim % 2 != 0) r.fail("shape.head_dim", "must be even (RoPE rotates pairs)");
    return c;
}

std::vector<CatalogueFile> read_files(const EntryReader& r) {
    const json& files = r.member(r.j(), "files", "files");
    if (!files.is_array() || files.empty()) r.fail("files", "must be a non-empty array");
    std::vector<CatalogueFile> out;
    std::set<std::string> quants;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string at = "files[" + std::to_string(i) + "]";
        const json& f = files[i];
        if (!f.is_object()) r.fail(at, "must be an object");
        CatalogueFile cf;
        const json& q = r.member(f, at + ".quant", "quant");
        if (!q.is_string() || q.get_ref<const std::string&>().empty()) r.fail(at + ".quant", "must be a non-empty string");
        cf.quant = q.get<std::string>();
        if (!estimated_quant_bytes(cf.quant, 1)) r.fail(at + ".quant", "'" + cf.quant + "' is not a known quantization");
        if (!quants.insert(cf.quant).second) r.fail(at + ".quant", "'" + cf.quant + "' is listed twice");
        const json& names = r.member(f, at + ".files", "files");
        if (!names.is_array() || names.empty()) r.fail(at + ".files", "must be a non-empty array of file names");
        for (const json& n : names) {
            if (!n.is_string()) r.fail(at + ".files", "must hold strings");
            const std::string& name = n.get_ref<const std::string&>();
            if (name.size() < 6 || name.substr(name.size() - 5) != ".gguf" || name.find("..") != std::string::npos ||
                name.front() == '/')
                r.fail(at + ".files", "'" + name + "' must be a relative .gguf path inside the repository");
            cf.files.push_back(name);
        }
        if (f.contains("bytes")) cf.bytes = r.positive(f, at + ".", "bytes", int64_t{1} << 50);
        out.push_back(std::move(cf));
    }
    return out;
}

CatalogueEntry read_entry(const json& j, const std::string& where) {
    if (!j.is_object()) throw FormatError(where + " must be an object");
    EntryReader r(j, where);
    CatalogueEntry e;
    e.id = r.text("id");
    const EntryReader named(j, where + " (" + e.id + ")");
    e.name = named.text("name");
    e.repo = named.text("repo");
    if (std::count(e.repo.begin(), e.repo.end(), '/') != 1 || e.repo.front() == '/' || e.repo.back() == '/')
        named.fail("repo", "'" + e.repo + "' must be owner/name");
    if (j.contains("revision")) e.revision = named.text("revision");
    e.shape = read_shape(named);
    e.shape.name = e.name;
    e.parameters = named.positive(j, "", "parameters", int64_t{1} << 44);
    e.parameters_published = named.text("parameters_published", false);
    e.licence = named.text("licence");
    e.gated = named.flag(j, "gated", "gated");
    e.chat_template = named.text("template");
    try {
        (void)parse_chat_template_name(e.chat_template);
    } catch (const Error& err) {
        named.fail("template", err.what());
    }
    e.fixture = named.text("fixture", false);
    e.files = read_files(named);
    e.note = named.text("note", false);
    return e;
}

}  // namespace

const CatalogueFile* CatalogueEntry::find_quant(std::string_view quant) const {
    for (const CatalogueFile& f : files)
        if (iequal(f.quant, quant)) return &f;
    return nullptr;
}

const CatalogueEntry* Catalogue::find(std::string_view id) const {
    for (const CatalogueEntry& e : models)
        if (iequal(e.id, id)) return &e;
    return nullptr;
}

Catalogue parse_catalogue(std::string_view json_text, const std::string& source) {
    const json doc = parse_json_input(json_text, source + ": ");
    if (!doc.is_object()) throw FormatError(source + ": the catalogue must be a JSON object");
    if (!doc.contains("format") || doc["format"] != 1)
        throw FormatError(source + ": format must be 1 (this snapdoc reads catalogue format 1)");
    if (!doc.contains("models") || !doc["models"].is_array())
        throw FormatError(source + ": models must be an array");
    Catalogue c;
    std::set<std::string> ids;
    for (std::size_t i = 0; i < doc["models"].size(); ++i) {
        CatalogueEntry e = read_entry(doc["models"][i], source + ": models[" + std::to_string(i) + "]");
        if (!ids.insert(e.id).second) throw FormatError(source + ": model id '" + e.id + "' is listed twice");
        c.models.push_back(std::move(e));
    }
    return c;
}

const Catalogue& builtin_catalogue() {
    static const Catalogue c = parse_catalogue(kCatalogueJson, "built-in catalogue");
    return c;
}

Catalogue load_catalogue(const std::filesystem::path& file) {
    return parse_catalogue(read_regular_file(file, std::size_t{4} << 20, "catalogue"), file.string());
}

std::optional<int64_t> estimated_quant_bytes(std::string_view quant, int64_t parameters) {
    // Average bits per weight of llama.cpp's mixes on 7B-8B models (the _M/_S mixes keep some
    // tensors at a higher type; norms stay F32): close enough to choose a file, not to plan to the byte.
    struct Bits {
        const char* name;
        double bpw;
    };
    static constexpr Bits kBits[] = {
        {"F32", 32.0},   {"F16", 16.0},    {"BF16", 16.0},   {"Q8_0", 8.5},    {"Q6_K", 6.56},
        {"Q5_K_M", 5.69}, {"Q5_K_S", 5.54}, {"Q5_0", 5.5},    {"Q5_1", 6.0},    {"Q4_K_M", 4.85},
        {"Q4_K_S", 4.58}, {"Q4_0", 4.55},   {"Q4_1", 5.0},    {"IQ4_XS", 4.25}, {"IQ4_NL", 4.5},
        {"Q3_K_L", 4.27}, {"Q3_K_M", 3.91}, {"Q3_K_S", 3.5},  {"Q2_K", 3.35},
    };
    for (const Bits& b : kBits)
        if (iequal(b.name, quant)) return static_cast<int64_t>(static_cast<double>(parameters) * b.bpw / 8.0);
    return std::nullopt;
}

int64_t weight_bytes_of(const CatalogueEntry& entry, const CatalogueFile& file) {
    if (file.bytes) return *file.bytes;
    return estimated_quant_bytes(file.quant, entry.parameters).value_or(0);
}

}  // namespace snapdoc::hub

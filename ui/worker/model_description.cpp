#include "ui/worker/model_description.h"

#include <QFileInfo>
#include <QObject>

#include "engine/model/model.h"
#include "engine/model/model_summary.h"
#include "engine/tokenizer/chat_template.h"
#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

namespace {
QString bytes(int64_t b) {
    return QString::fromStdString(format_bytes(b));
}
}  // namespace

ModelInfo describe_model(const Model& model, const QString& path) {
    const ModelConfig& c = model.config;
    const ModelSummary s = summarize(model);
    ModelInfo info;
    info.path = path;
    info.name = c.name.empty() ? QFileInfo(path).fileName() : QString::fromStdString(c.name);
    info.format = model.format == ModelFormat::Gguf ? QStringLiteral("GGUF") : QStringLiteral("Hugging Face");
    info.architecture = QString::fromStdString(c.architecture);
    info.dtype = QString::fromStdString(std::string(dtype_name(c.weight_dtype)));
    info.chat_template = QString::fromStdString(
        std::string(chat_template_name(detect_chat_template(model.chat_template).kind)));
    info.tokenizer_error = !model.has_tokenizer() ? QString::fromStdString(model.tokenizer_error.empty()
                                                                               ? "the model has no tokenizer"
                                                                               : model.tokenizer_error)
                                                  : QString();
    info.n_layers = c.n_layers;
    info.dim = c.dim;
    info.n_heads = c.n_heads;
    info.n_kv_heads = c.n_kv_heads;
    info.head_dim = c.head_dim;
    info.ffn_dim = c.ffn_dim;
    info.vocab_size = c.vocab_size;
    info.context_length = c.context_length;
    info.parameters = s.parameters;
    info.weight_bytes = s.weight_bytes;
    info.kv_bytes_per_token = s.kv_bytes_per_token;
    info.kv_store_bytes_per_token = s.kv_store_bytes_per_token;
    info.run_bytes_at_context = estimate_run_bytes(model, c.context_length);
    info.type_mix = QString::fromStdString(format_type_mix(s.type_mix));
    info.type_mix_short = QString::fromStdString(format_type_mix_short(s.type_mix));
    const MemoryPlan mem = plan_memory(model);
    info.snapkv_budget = mem.snapkv_budget;
    info.kv_bytes_at_budget = mem.kv_at_budget;
    info.scratch_bytes = mem.scratch;
    for (const std::string& role : model.head_roles) info.head_roles << QString::fromStdString(role);
    return info;
}

QString model_info_text(const ModelInfo& i) {
    QString t;
    t += QObject::tr("Model: %1 (%2)\n").arg(i.name, i.format);
    t += QObject::tr("Architecture: %1, %2 layers, hidden size %3\n")
             .arg(i.architecture)
             .arg(i.n_layers)
             .arg(i.dim);
    t += QObject::tr("Attention: %1 query heads, %2 key/value heads, head size %3\n")
             .arg(i.n_heads)
             .arg(i.n_kv_heads)
             .arg(i.head_dim);
    // The bytes as stored: a GGUF mixes types (Q4_K_M is mostly Q6_K by size in small models); the
    // tensor types line below says which.
    t += QObject::tr("Parameters: %1 (%2 as stored)\n").arg(with_commas(i.parameters), bytes(i.weight_bytes));
    t += QObject::tr("Context length: %1 tokens\n").arg(with_commas(i.context_length));
    t += QObject::tr("Tensor types: %1\n").arg(i.type_mix);
    t += QObject::tr("Weights: %1 as stored (memory-mapped)\n").arg(bytes(i.weight_bytes));
    // Two quantities, each on its own basis (they were mixed: a 1,024-entry budget "cost" twice an
    // uncompressed 1K tokens): the cache attention reads (f16 by default) and the full store re-selection reads.
    t += QObject::tr(
             "KV cache (f16, what attention reads): %1 per 1K tokens uncompressed; %2 at a SnapKV budget of "
             "%3 positions per head, whatever the document length\n")
             .arg(bytes(i.kv_bytes_per_token * 1024), bytes(i.kv_bytes_at_budget))
             .arg(i.snapkv_budget);
    t += QObject::tr("K/V store (f16, the document's full K/V kept for re-selection): %1 per 1K tokens\n")
             .arg(bytes(i.kv_store_bytes_per_token * 1024));
    t += QObject::tr("Compute scratch: %1\n").arg(bytes(i.scratch_bytes));
    t += QObject::tr("Memory for a full context: about %1\n").arg(bytes(i.run_bytes_at_context));
    t += QObject::tr("Chat template: %1").arg(i.chat_template);
    if (!i.tokenizer_error.isEmpty()) t += QObject::tr("\nTokenizer problem: %1").arg(i.tokenizer_error);
    return t;
}

}  // namespace snapdoc::ui

// The engine's home in the app: a QObject living on its own QThread (see EngineHost) that owns the
// model, tokenizer, backend and document session. Its methods run on that thread only (the GUI
// posts them through EngineHost::post); it reports back exclusively through queued signals
// carrying values and immutable snapshots, and never touches a GUI-owned object. Long operations
// take a CancelToken that the GUI sets to stop them (checked per token and per prefill chunk).
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <string>

#include "ui/worker/worker_types.h"

namespace snapdoc {
struct Model;
class Tokenizer;
class Backend;
class DocumentChat;
}  // namespace snapdoc

namespace snapdoc::ui {

struct RemoteState;

class EngineWorker : public QObject {
    Q_OBJECT
public:
    explicit EngineWorker(QObject* parent = nullptr);
    ~EngineWorker() override;

    // Maps the model and describes it without building a backend (cheap: weights stay mapped).
    void inspectModel(const QString& path);
    // Loads the model (reusing an inspected one), its tokenizer and a CPU backend. Drops any document.
    void loadModel(const QString& path, const ModelLoadOptions& options);
    // Tokenizes the document in the chat template, refuses it with numbers when the document plus
    // `reserve_tokens` (question + answer) exceed the context, then prefills it layer by layer.
    void loadDocument(qint64 document_id, std::shared_ptr<const std::string> text, int reserve_tokens,
                      bool ignore_context, CancelToken cancel);
    // The system prompt the next loadDocument reads the document with (it is part of the document
    // part: the template puts it first). Kept across model loads.
    void setSystemPrompt(const std::string& system_prompt);
    // The on-disk K/V cache (engine/kv/kv_store_cache.h) loadDocument consults before prefilling and
    // fills after: `dir` empty turns it off. Kept across model loads; takes effect at once.
    void setKvCache(const QString& dir, qint64 cap_bytes);
    // Answers by re-snapping over the prefilled document and the request's history (engine
    // DocumentChat::ask), streaming text. When the request's system prompt is not the one the
    // document was read with, the document is read again first (and documentLoaded is emitted with
    // the new position -> text map, since positions shift).
    void ask(const AskRequest& request);
    // New selection for the last question with `config`: no forward pass.
    void reselect(const SnapKvConfig& config);
    // New selection for the question of `base`: reselect when it is the last question asked here
    // (it can re-score another window), else from the window scores `base` holds (reselect_held:
    // another conversation's question). Answered with selectionReady / selectionFailed.
    void reselectFor(const SnapKvConfig& config, const SelectionSnapshot& base);
    // The same question answered with the full cache, then with SnapKV.
    void compare(const AskRequest& request);
    // Answers with a remote engine from now on (Settings > Connections; engine_worker_remote.cpp):
    // drops the local model and any document, discovers the endpoint's engine, model and context,
    // and reports it as modelLoaded (ModelInfo::remote_engine set) or modelFailed in words.
    // loadDocument then uploads the document to a snapdoc-server (its progress as documentProgress
    // with total_layers 0) or checks that it fits any other engine's context; ask streams the
    // answer from the server. loadModel goes back to a local model.
    void useRemote(const snapdoc::services::ConnectionSettings& connection);

signals:
    void modelInspected(const snapdoc::ui::ModelInfo& info);
    void modelLoaded(const snapdoc::ui::ModelInfo& info);
    void modelFailed(const QString& path, const QString& message);
    // Before the prefill starts: the probe's prediction (seconds < 0: the document is too short to probe).
    void documentEstimated(qint64 document_id, int tokens, double seconds);
    // After every prefill chunk: `fraction` is the cost-weighted share of the work done.
    void documentProgress(qint64 document_id, int done_layers, int total_layers, double fraction,
                          double elapsed_seconds);
    void documentLoaded(const snapdoc::ui::DocumentReady& ready);
    void documentFailed(qint64 document_id, const QString& message, bool cancelled);
    // The answer's selection, made before its first token (the inspector shows it while it streams).
    void answerSelection(quint64 request_id, const snapdoc::ui::SelectionSnapshot& snapshot);
    void answerText(quint64 request_id, const QString& text);
    void answerFinished(const snapdoc::ui::AnswerStats& stats,
                        const snapdoc::ui::SelectionSnapshot& snapshot);
    void answerFailed(quint64 request_id, const QString& message);
    void selectionReady(const snapdoc::ui::SelectionSnapshot& snapshot);
    void selectionFailed(const QString& message);
    void compareText(quint64 request_id, int side, const QString& text);  // side 0: full, 1: SnapKV
    void compareFinished(const snapdoc::ui::CompareResult& result);
    void compareFailed(quint64 request_id, const QString& message);

private:
    struct State;
    SelectionSnapshot snapshot_of(std::shared_ptr<const Selection> selection, double select_seconds) const;
    // Rebuilds the backend and chat when the document needs another context (LongRoPE factors).
    void use_run_context(int context_length);
    AnswerStats run_ask(const AskRequest& request, const SnapKvConfig& config, int side,
                        std::shared_ptr<const Selection>* selection,
                        std::shared_ptr<const std::vector<float>>* answer_attention = nullptr);
    // Reads the document again when `system_prompt` is not the one it was read with; returns the
    // seconds that took (0: nothing to do). Throws Cancelled when stopped, Error when it failed.
    double ensure_system_prompt(const std::string& system_prompt, const AskRequest& request);

    void drop_local_model();
    const std::string& next_system_prompt() const;
    // engine_worker_remote.cpp
    void load_remote_document(qint64 document_id, std::shared_ptr<const std::string> text, int reserve_tokens,
                              CancelToken cancel);
    void ask_remote(const AskRequest& request);

    std::unique_ptr<State> s_;
    std::unique_ptr<RemoteState> remote_;  // set while a remote engine answers
};

}  // namespace snapdoc::ui

// Owns the engine worker's QThread. `post` queues a call onto that thread and returns at once, so
// the GUI never waits for the engine. On destruction every cancel token handed out is set, then the
// thread is asked to finish and joined: a long prefill stops at its next chunk.
#pragma once

#include <QObject>
#include <QThread>
#include <functional>
#include <memory>
#include <vector>

#include "ui/worker/engine_worker.h"

namespace snapdoc::ui {

class EngineHost : public QObject {
    Q_OBJECT
public:
    explicit EngineHost(QObject* parent = nullptr);
    ~EngineHost() override;

    // The worker, for connecting to its signals (queued: it lives on another thread). Never call
    // its methods directly from the GUI thread; use post().
    EngineWorker* worker() const { return worker_; }

    // Runs `call(worker)` on the engine thread, after everything posted before it.
    void post(std::function<void(EngineWorker&)> call);

    // A cancel token that shutdown also sets.
    CancelToken new_cancel_token();
    // Sets every live token (stop whatever runs now and whatever is queued).
    void cancel_all();

private:
    QThread thread_;
    EngineWorker* worker_ = nullptr;
    std::vector<std::weak_ptr<std::atomic<bool>>> tokens_;
};

}  // namespace snapdoc::ui

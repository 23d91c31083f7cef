#include "ui/worker/engine_host.h"

#include <QMetaObject>
#include <algorithm>

namespace snapdoc::ui {

EngineHost::EngineHost(QObject* parent) : QObject(parent) {
    register_worker_types();
    thread_.setObjectName(QStringLiteral("snapdoc-engine"));
    worker_ = new EngineWorker;  // no parent: it moves to the engine thread and is deleted there
    worker_->moveToThread(&thread_);
    connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);
    thread_.start();
}

EngineHost::~EngineHost() {
    cancel_all();
    thread_.quit();
    thread_.wait();
}

void EngineHost::post(std::function<void(EngineWorker&)> call) {
    EngineWorker* w = worker_;
    // A functor with a context object runs on the context's thread (queued across threads).
    QMetaObject::invokeMethod(
        w, [w, call = std::move(call)] { call(*w); }, Qt::QueuedConnection);
}

CancelToken EngineHost::new_cancel_token() {
    tokens_.erase(std::remove_if(tokens_.begin(), tokens_.end(), [](const auto& w) { return w.expired(); }),
                  tokens_.end());
    CancelToken t = make_cancel_token();
    tokens_.push_back(t);
    return t;
}

void EngineHost::cancel_all() {
    for (const auto& w : tokens_)
        if (auto t = w.lock()) t->store(true);
}

}  // namespace snapdoc::ui

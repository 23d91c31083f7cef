// MainWindow and the on-disk K/V cache: which folder, and the Settings' on/off and size cap, handed
// to the engine worker (it owns the cache; the GUI thread never opens cache files).
#include "ui/main/main_window.h"
#include "ui/worker/engine_host.h"

namespace snapdoc::ui {

void MainWindow::set_kv_cache_dir(const QString& dir) {
    kv_cache_dir_ = dir;
    apply_kv_cache_settings();
    apply_local_server_settings();  // the local server shares the folder
}

void MainWindow::apply_kv_cache_settings() {
    const QString dir = settings_.generation.kv_cache ? kv_cache_dir_ : QString();
    const qint64 cap = static_cast<qint64>(std::max(0, settings_.generation.kv_cache_cap_mb)) << 20;
    engine_->post([dir, cap](EngineWorker& w) { w.setKvCache(dir, cap); });
}

}  // namespace snapdoc::ui

#include "app/services/app_paths.h"

#include <QDir>
#include <QStandardPaths>

#include "engine/common/error.h"
#include "engine/kv/kv_store_cache.h"

namespace snapdoc::services {

namespace {

// Qt 6.4 has no StateLocation; the XDG rule is $XDG_STATE_HOME or ~/.local/state. In test mode
// QStandardPaths redirects data to ~/.qttest, so state follows it there.
QString state_dir() {
    if (QStandardPaths::isTestModeEnabled())
        return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/state";
    QString base = qEnvironmentVariable("XDG_STATE_HOME");
    if (base.isEmpty() || !QDir::isAbsolutePath(base)) base = QDir::homePath() + "/.local/state";
    return base + "/snapdoc";
}

void make_dir(const QString& dir) {
    if (!QDir().mkpath(dir)) throw Error("cannot create directory " + dir.toStdString());
}

}  // namespace

QString AppPaths::database_file() const {
    return data_dir + "/library.sqlite";
}
QString AppPaths::log_file() const {
    return log_dir + "/snapdoc.log";
}

AppPaths resolve_app_paths(const QString& override_dir) {
    AppPaths p;
    QString dir = override_dir;
    if (dir.isEmpty()) dir = qEnvironmentVariable("SNAPDOC_DATA_DIR");
    if (!dir.isEmpty()) {
        p.data_dir = QDir(dir).absolutePath();
        p.log_dir = p.data_dir + "/logs";
        p.kv_cache_dir = p.data_dir + "/kv-cache";
    } else {
        // AppDataLocation is $XDG_DATA_HOME/<organization>/<application>; snapdoc sets no organization.
        p.data_dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
        if (p.data_dir.isEmpty()) p.data_dir = QDir::homePath() + "/.local/share/snapdoc";
        p.log_dir = state_dir();
        // In QStandardPaths test mode the cache follows the redirected data folder, like the state.
        p.kv_cache_dir = QStandardPaths::isTestModeEnabled()
                             ? p.data_dir + "/kv-cache"
                             : QString::fromStdString(KvStoreCache::default_dir().string());
    }
    make_dir(p.data_dir);
    make_dir(p.log_dir);
    return p;
}

}  // namespace snapdoc::services

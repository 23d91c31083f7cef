// Where the desktop app keeps its files, following the XDG base directories through
// QStandardPaths: the library database in $XDG_DATA_HOME/snapdoc, the log in
// $XDG_STATE_HOME/snapdoc. One directory overrides both (--data-dir, SNAPDOC_DATA_DIR, or tests),
// so a test or a second profile never touches the user's library.
#pragma once

#include <QString>

namespace snapdoc::services {

struct AppPaths {
    QString data_dir;  // holds library.sqlite
    QString log_dir;   // holds snapdoc.log (rotated)
    // The on-disk K/V cache ($XDG_CACHE_HOME/snapdoc/kv, shared with snapdoc-cli ask); under the
    // data folder when one is named (a test or a second profile keeps its own). Created on first use.
    QString kv_cache_dir;
    QString database_file() const;
    QString log_file() const;
};

// `override_dir` wins, then the SNAPDOC_DATA_DIR environment variable, then the XDG locations.
// Creates the directories; throws snapdoc::Error naming a directory that cannot be created.
AppPaths resolve_app_paths(const QString& override_dir = {});

}  // namespace snapdoc::services

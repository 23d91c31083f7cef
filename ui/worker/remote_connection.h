// A Settings > Connections entry as the remote client (app/remote) needs it, and the "Test /
// refresh" probe: which engine answers, its models and their context, or why it cannot be used,
// in words. Runs the network on the caller's thread: the GUI calls it through QtConcurrent.
#pragma once

#include <QString>
#include <QStringList>

#include "app/remote/remote_endpoint.h"
#include "app/services/app_settings.h"

namespace snapdoc::ui {

// Throws Error for a URL that is not http(s)://host[...] (normalize_base_url's words).
remote::RemoteEndpoint endpoint_of(const services::ConnectionSettings& connection);

struct ConnectionProbe {
    bool ok = false;
    QString engine;       // "snapdoc-server", "vLLM", ... ("" when it failed)
    QStringList models;   // the ids /v1/models lists
    QString summary;      // one paragraph: the engine, each model with its context; or the error
};

ConnectionProbe probe_connection(const services::ConnectionSettings& connection);

}  // namespace snapdoc::ui

// What the engine worker holds while a remote engine answers (EngineWorker::useRemote): where it
// is, what it serves, and the document it was given (uploaded to a snapdoc-server, or kept to go
// into each prompt for any other engine).
#pragma once

#include <QString>
#include <memory>
#include <string>

#include "app/remote/remote_endpoint.h"
#include "app/remote/remote_models.h"

namespace snapdoc::ui {

struct RemoteState {
    QString name;  // the connection's
    remote::RemoteEndpoint endpoint;
    remote::RemoteServer server;
    remote::RemoteModel model;
    bool snapdoc_server() const { return server.kind == remote::EngineKind::SnapdocServer; }

    qint64 document_id = -1;  // the library's id of the document given, -1 if none
    std::shared_ptr<const std::string> text;
    std::string system_prompt;       // what the document was given with
    std::string server_document_id;  // a snapdoc-server's document session
};

}  // namespace snapdoc::ui

#include "ui/worker/remote_connection.h"

#include <QObject>

#include "app/remote/remote_models.h"
#include "ui/widgets/number_format.h"

namespace snapdoc::ui {

remote::RemoteEndpoint endpoint_of(const services::ConnectionSettings& c) {
    remote::RemoteEndpoint ep;
    ep.root = remote::normalize_base_url(c.url);
    ep.api_key = c.api_key;
    ep.ca_cert_file = c.ca_cert;
    ep.insecure_skip_verify = c.insecure;
    return ep;
}

ConnectionProbe probe_connection(const services::ConnectionSettings& c) {
    ConnectionProbe out;
    try {
        remote::RemoteEndpoint ep = endpoint_of(c);
        ep.request_timeout_ms = 20000;  // a test in Settings: an answer in seconds, or the reason
        const remote::RemoteServer server = remote::discover(ep, c.model);
        out.engine = QString::fromUtf8(remote::engine_name(server.kind).data(),
                                       static_cast<qsizetype>(remote::engine_name(server.kind).size()));
        QStringList lines;
        for (const remote::RemoteModel& m : server.models) {
            const QString id = QString::fromStdString(m.id);
            out.models << id;
            lines << (m.context > 0 ? QObject::tr("%1: context %2 tokens (%3)")
                                          .arg(id, with_commas(m.context), QString::fromStdString(m.context_source))
                                    : QObject::tr("%1: context not given by the server").arg(id));
        }
        out.ok = true;
        out.summary = QObject::tr("%1 at %2, %n model(s):", nullptr, static_cast<int>(server.models.size()))
                          .arg(out.engine, QString::fromStdString(ep.root)) +
                      QStringLiteral("\n") + lines.join(QLatin1Char('\n'));
    } catch (const std::exception& e) {
        out.ok = false;
        out.summary = QString::fromStdString(e.what());
    }
    return out;
}

}  // namespace snapdoc::ui

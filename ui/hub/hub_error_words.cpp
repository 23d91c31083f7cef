#include "ui/hub/hub_error_words.h"

#include <QCoreApplication>

namespace snapdoc::ui {

namespace {

struct Known {
    const char* curl_text;  // a piece of curl_easy_strerror's text (libcurl 7.x and 8.x)
    const char* words;
};

// Only libcurl's transport failures: they say nothing a user can act on by themselves.
constexpr Known kKnown[] = {
    {"resolve host", QT_TRANSLATE_NOOP("HubError",
                                       "The hub's address could not be found: check the network connection, "
                                       "or the Hugging Face endpoint in Settings > Getting models.")},
    {"resolve proxy", QT_TRANSLATE_NOOP("HubError", "The proxy's address could not be found: check the proxy "
                                                    "settings (https_proxy) and the network connection.")},
    {"connect to server", QT_TRANSLATE_NOOP("HubError",
                                            "The hub did not accept a connection: check the network "
                                            "connection, or the Hugging Face endpoint in Settings > Getting "
                                            "models, and try again.")},
    {"Timeout", QT_TRANSLATE_NOOP("HubError", "The hub did not answer in time: the network may be slow or "
                                              "down. Try again in a moment.")},
    {"SSL", QT_TRANSLATE_NOOP("HubError", "A secure connection to the hub could not be made (a certificate "
                                          "or proxy problem): check the system's clock and certificates.")},
    {"receiving data", QT_TRANSLATE_NOOP("HubError",
                                         "The connection to the hub broke off: try again.")},
};

}  // namespace

QString hub_error_in_words(const QString& raw) {
    for (const Known& k : kKnown)
        if (raw.contains(QLatin1String(k.curl_text), Qt::CaseInsensitive))
            return QCoreApplication::translate("HubError", "%1 (Details: %2)").arg(QCoreApplication::translate("HubError", k.words), raw);
    return raw;
}

}  // namespace snapdoc::ui

// Issue 21 item 4, in the real main window: Settings > Local server (OpenAI API) starts the real
// snapdoc-server for the loaded demo model; the address appears in the status bar, /health and
// /v1/models answer on loopback, a new API key restarts it (401 without the key), opening another model
// restarts it for that model, a port already in use is said in words, and turning the setting off stops it
// (the port is closed). Issue 37: the status bar counts its requests and says what it is doing, and
// Settings > Local Server Log shows its log lines.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QUrl>
#include <QtTest>
#include <functional>
#include <nlohmann/json.hpp>

#include "app/services/library_store.h"
#include "tests/ui/support/ui_test_support.h"
#include "ui/main/local_server_controller.h"
#include "ui/main/main_window.h"
#include "ui/main/model_controller.h"

using namespace snapdoc;
using namespace snapdoc::ui;
using snapdoc::test::child;
using snapdoc::test::wait_until;

namespace {

// Settings > Local server changed by `edit`, then OK.
bool edit_settings(MainWindow& w, const std::function<void(QDialog&)>& edit) {
    return snapdoc::test::edit_settings(w, [&](QDialog& d) {
        edit(d);
        return true;
    });
}

void set_server(QDialog& d, bool on, int port, const QString& key) {
    child<QCheckBox>(d, "localServerCheck")->setChecked(on);
    child<QSpinBox>(d, "localServerPortSpin")->setValue(port);
    child<QLineEdit>(d, "localServerKeyEdit")->setText(key);
}

int port_of(const QString& address) {
    return QUrl(address).port();
}

// GET `path` on 127.0.0.1:port; -1 when nothing answers.
int status_of(int port, const char* path, const std::string& key = {}, std::string* body = nullptr) {
    httplib::Client cli("127.0.0.1", port);
    cli.set_connection_timeout(5);
    cli.set_read_timeout(10);
    if (!key.empty()) cli.set_bearer_token_auth(key.c_str());
    auto r = cli.Get(path);
    if (!r) return -1;
    if (body) *body = r->body;
    return r->status;
}

// Bounded: the demo model loads in well under a second; 30 s covers a loaded CI machine.
bool wait_healthy(int port) {
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 300 && t.elapsed() < 30000; ++i) {
        if (status_of(port, "/health") == 200) return true;
        QTest::qWait(100);
    }
    return false;
}

}  // namespace

class TestLocalServer : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::unique_ptr<services::LibraryStore> store_;
    int held_fd_ = -1;

    // A listening socket on 127.0.0.1 (any free port, no SO_REUSEPORT); its port, -1 on failure.
    int listen_on_loopback() {
        held_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (held_fd_ < 0 || ::bind(held_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::listen(held_fd_, 1) != 0 || ::getsockname(held_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0)
            return -1;
        return ntohs(a.sin_port);
    }

private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        store_ = std::make_unique<services::LibraryStore>((dir_.path() + "/library.sqlite").toStdString());
    }

    void off_by_default() {
        MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        QVERIFY(!w.settings().local_server.enabled);
        QVERIFY(!w.local_server().running());
        QVERIFY(child<QLabel>(w, "localServerStatusLabel")->text().isEmpty());
    }

    void serves_the_loaded_model() {
        const QString model = snapdoc::test::source_file("resources/models/snapdoc-demo.gguf");
        if (!QFileInfo::exists(model)) QSKIP(qPrintable(model + " is absent"));
        MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.show();
        QVERIFY2(QFileInfo(w.local_server().program()).isExecutable(),
                 qPrintable(w.local_server().program()));
        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        w.open_model(model, /*confirm=*/false);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        auto* label = child<QLabel>(w, "localServerStatusLabel");

        // On, any free port, no key: the address shows, /health and /v1/models answer.
        QVERIFY(edit_settings(w, [](QDialog& d) { set_server(d, true, 0, {}); }));
        QVERIFY2(wait_until([&] { return !w.local_server().address().isEmpty(); }, 30000),
                 qPrintable(w.local_server().status_text()));
        const QString address = w.local_server().address();
        QVERIFY2(address.startsWith("http://127.0.0.1:"), qPrintable(address));
        const int port = port_of(address);
        QVERIFY(port > 0);
        QVERIFY2(wait_healthy(port), qPrintable(w.local_server().status_text()));
        QVERIFY(wait_until([&] { return label->text() == "Local server: " + address; }, 10000));
        std::string body;
        QCOMPARE(status_of(port, "/v1/models", {}, &body), 200);
        const auto models = nlohmann::json::parse(body);
        QCOMPARE(models.at("object").get<std::string>(), std::string("list"));
        QVERIFY(!models.at("data").empty());
        QVERIFY(w.settings().local_server.enabled);  // saved like the other settings
        QVERIFY(services::load_settings(*store_).local_server.enabled);

        // A new API key restarts it: 401 without the key, 200 with it.
        QVERIFY(edit_settings(w, [](QDialog& d) { set_server(d, true, 0, "s3cret"); }));
        QVERIFY(wait_until([&] { return !w.local_server().address().isEmpty(); }, 30000));
        int keyed = port_of(w.local_server().address());
        QVERIFY(wait_healthy(keyed));
        QCOMPARE(status_of(keyed, "/v1/models"), 401);
        QCOMPARE(status_of(keyed, "/v1/models", "s3cret"), 200);
        QCOMPARE(status_of(keyed, "/v1/models", "wrong"), 401);

        // Another model: the server restarts for it (/props names its file).
        const QString other = dir_.path() + "/other-model.gguf";
        QVERIFY(QFile::copy(model, other));
        w.open_model(other, /*confirm=*/false);
        QVERIFY(wait_until([&] { return loaded.count() == 2; }));
        QVERIFY(wait_until([&] { return !w.local_server().address().isEmpty(); }, 30000));
        const int reloaded = port_of(w.local_server().address());
        QVERIFY(wait_healthy(reloaded));
        QCOMPARE(status_of(reloaded, "/props", "s3cret", &body), 200);
        QCOMPARE(nlohmann::json::parse(body).at("model_path").get<std::string>(), other.toStdString());
        if (reloaded != keyed) QCOMPARE(status_of(keyed, "/health"), -1);  // the old child is gone
        keyed = reloaded;

        // Off: the child is stopped (SIGTERM, drained) and its port no longer answers.
        QVERIFY(edit_settings(w, [](QDialog& d) { set_server(d, false, 0, "s3cret"); }));
        QVERIFY(!w.local_server().running());
        QVERIFY(w.local_server().address().isEmpty());
        QVERIFY(label->text().isEmpty());
        QCOMPARE(status_of(keyed, "/health"), -1);
        QVERIFY(!services::load_settings(*store_).local_server.enabled);
    }

    void counts_requests_and_shows_the_log() {
        const QString model = snapdoc::test::source_file("resources/models/snapdoc-demo.gguf");
        if (!QFileInfo::exists(model)) QSKIP(qPrintable(model + " is absent"));
        MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.show();
        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        w.open_model(model, /*confirm=*/false);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        QVERIFY(edit_settings(w, [](QDialog& d) { set_server(d, true, 0, {}); }));
        QVERIFY(wait_until([&] { return !w.local_server().address().isEmpty(); }, 30000));
        const int port = port_of(w.local_server().address());
        QVERIFY2(wait_healthy(port), qPrintable(w.local_server().status_text()));
        auto* activity = child<QLabel>(w, "localServerActivityLabel");
        QVERIFY(wait_until([&] { return activity->isVisible(); }, 10000));
        // The /health polls above, once their log lines have come through the event loop (under load
        // they arrive after wait_healthy returns).
        QVERIFY(wait_until([&] { return w.local_server().activity().request_count() >= 1; }, 10000));
        const qint64 before = w.local_server().activity().request_count();

        // A chat with a pasted document: its prefill, its answer, then idle; one more request.
        std::string document;
        for (int i = 0; i < 600; ++i) document += "Line " + std::to_string(i) + " of the pasted report. ";
        const nlohmann::json body{
            {"messages", {{{"role", "user"}, {"content", document + "\n\nWhat is line 7?"}}}},
            {"max_tokens", 4}};
        httplib::Client cli("127.0.0.1", port);
        cli.set_read_timeout(60);
        auto r = cli.Post("/v1/chat/completions", body.dump(), "application/json");
        QVERIFY(r);
        QCOMPARE(r->status, 200);
        const auto log_has = [&](const QString& text) {
            for (const QString& line : w.local_server().activity().lines())
                if (line.contains(text)) return true;
            return false;
        };
        QVERIFY2(wait_until([&] { return log_has("request: POST /v1/chat/completions 200 "); }, 10000),
                 qPrintable(w.local_server().activity().text().right(2000)));
        QVERIFY(log_has("] [info] prefill: "));
        QVERIFY(log_has("] [info] answering"));
        // The engine says "idle" right after the answer; the request line may come before it.
        QVERIFY2(wait_until([&] { return w.local_server().activity().activity() == "Idle"; }, 10000),
                 qPrintable(w.local_server().activity().activity()));
        QVERIFY(w.local_server().activity().request_count() >= before + 1);
        const QString count = QString::number(w.local_server().activity().request_count());
        QVERIFY2(wait_until([&] { return activity->text() == count + " requests · Idle"; }, 10000),
                 qPrintable(activity->text()));

        // Settings > Local Server Log: the same lines, new ones following.
        QAction* open_log = nullptr;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->text() == "Local Server &Log…") open_log = a;
        QVERIFY(open_log);
        open_log->trigger();
        auto* view = child<QPlainTextEdit>(w, "serverLogView");
        QVERIFY(view->isVisible());
        QVERIFY(view->toPlainText().contains("request: POST /v1/chat/completions 200 "));
        QCOMPARE(status_of(port, "/v1/models"), 200);
        QVERIFY(
            wait_until([&] { return view->toPlainText().contains("request: GET /v1/models 200 "); }, 10000));

        QVERIFY(edit_settings(w, [](QDialog& d) { set_server(d, false, 0, {}); }));
        QVERIFY(!activity->isVisible());
    }

    void a_port_in_use_is_said_in_words() {
        const QString model = snapdoc::test::source_file("resources/models/snapdoc-demo.gguf");
        if (!QFileInfo::exists(model)) QSKIP(qPrintable(model + " is absent"));
        // Another program holds a loopback port. (Not an httplib::Server: cpp-httplib 0.11 sets
        // SO_REUSEPORT, so a second httplib server may bind the same port.)
        const int taken = listen_on_loopback();
        QVERIFY(taken > 0);
        const auto closer = qScopeGuard([&] { ::close(held_fd_); });
        MainWindow w(*store_, std::make_unique<snapdoc::test::RecordingDialogs>());
        w.show();
        QSignalSpy loaded(&w.models(), &ModelController::loaded);
        w.open_model(model, /*confirm=*/false);
        QVERIFY(wait_until([&] { return loaded.count() == 1; }));
        QVERIFY(edit_settings(w, [&](QDialog& d) { set_server(d, true, taken, {}); }));
        QVERIFY(wait_until([&] { return !w.local_server().running(); }, 30000));
        const QString status = child<QLabel>(w, "localServerStatusLabel")->text();
        QVERIFY2(
            status.startsWith("Local server stopped: cannot listen on 127.0.0.1:" + QString::number(taken)),
            qPrintable(status));
        QVERIFY2(status.contains("address in use"), qPrintable(status));
        QVERIFY(w.local_server().address().isEmpty());
        // The dialog shows the same words beside the fields.
        QString shown;
        QVERIFY(edit_settings(w, [&](QDialog& d) {
            shown = child<QLabel>(d, "localServerAddressLabel")->text();
            set_server(d, false, taken, {});
        }));
        QCOMPARE(shown, status);
    }
};

QTEST_MAIN(TestLocalServer)
#include "test_local_server.moc"

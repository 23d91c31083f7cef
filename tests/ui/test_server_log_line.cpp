// Issue 37: the app reads the local server's stderr for its status bar. The server's activity lines
// ("request: …", "prefill: …", "answering", "idle" after spdlog's prefix) become events; anything
// else, garbage and invalid UTF-8 included, is only kept for the log, never a crash or a count. The
// kept log is bounded.
#include <QtTest>

#include "ui/main/server_activity.h"
#include "ui/main/server_log_line.h"

using snapdoc::ui::parse_server_log_line;
using snapdoc::ui::ServerActivity;
using Kind = snapdoc::ui::ServerLogEvent::Kind;

class TestServerLogLine : public QObject {
    Q_OBJECT
private slots:
    void reads_a_request_line() {
        const auto e =
            parse_server_log_line("[12:54:35.858] [info] request: POST /v1/chat/completions 200 2021 ms");
        QCOMPARE(e.kind, Kind::Request);
        QCOMPARE(e.method, QString("POST"));
        QCOMPARE(e.path, QString("/v1/chat/completions"));
        QCOMPARE(e.status, 200);
        QCOMPARE(e.milliseconds, qint64(2021));
        // A decoded path may hold spaces; the status and time are the last words.
        const auto spaced =
            parse_server_log_line("[01:02:03.004] [info] request: GET /v1/documents/a b 404 0 ms");
        QCOMPARE(spaced.kind, Kind::Request);
        QCOMPARE(spaced.path, QString("/v1/documents/a b"));
        QCOMPARE(spaced.status, 404);
    }

    void reads_prefill_answering_and_idle() {
        const auto p = parse_server_log_line("[12:54:33.993] [info] prefill: 34% of 93210 tokens");
        QCOMPARE(p.kind, Kind::Prefill);
        QCOMPARE(p.percent, 34);
        QCOMPARE(p.tokens, qint64(93210));
        QCOMPARE(parse_server_log_line("[12:54:34.684] [info] answering").kind, Kind::Answering);
        QCOMPARE(parse_server_log_line("[12:54:35.850] [info] idle").kind, Kind::Idle);
    }

    void anything_else_is_other() {
        for (const char* line : {
                 "",
                 "snapdoc-server: listening on http://127.0.0.1:8080",
                 "snapdoc-server: model demo.gguf ready (template chatml, context 131072)",
                 "[12:54:34.684] [info] prompt 6020 tokens: document part 3972 (new, 0 reused), tail 2048",
                 "[12:54:34.684] [warn] request: GET /health 200 0 ms",   // not an info line
                 "request: GET /health 200 0 ms",                         // no spdlog prefix
                 "[12:54:34.684] [info] request: GET /health 2000 0 ms",  // not a status
                 "[12:54:34.684] [info] request: GET /health 200 ms",
                 "[12:54:34.684] [info] prefill: 340% of 10 tokens",
                 "[12:54:34.684] [info] prefill: 34% of 99999999999999999999999 tokens",
                 "[12:54:34.684] [info] idle now",
                 "[[[[ ]]]] [info]",
             })
            QCOMPARE(parse_server_log_line(QString::fromUtf8(line)).kind, Kind::Other);
    }

    void invalid_utf8_and_garbage_are_kept_as_is() {
        ServerActivity a;
        const QByteArray bad("\xff\xfe[12:00:00.000] [info] request: GET /x 200 1 ms\xc3");
        const QString kept = a.add_line(bad);
        QVERIFY(kept.contains(QChar(0xFFFD)));  // the bad bytes, shown as replacement characters
        QVERIFY(kept.contains("request: GET /x"));
        QCOMPARE(a.request_count(), qint64(0));  // not the server's line: not counted
        a.add_line(QByteArray("\0\x01\x02 binary\x7f", 11));
        a.add_line(QByteArray(100000, '\x80'));
        QCOMPARE(int(a.lines().size()), 3);
        QCOMPARE(a.activity(), QString("Idle"));
    }

    void counts_requests_and_follows_the_activity() {
        ServerActivity a;
        QCOMPARE(a.request_count(), qint64(0));
        QCOMPARE(a.activity(), QString("Idle"));
        a.add_line("[12:00:00.000] [info] request: GET /health 200 0 ms\r");  // a CR is dropped
        QCOMPARE(a.lines().back(), QString("[12:00:00.000] [info] request: GET /health 200 0 ms"));
        QCOMPARE(a.request_count(), qint64(1));
        a.add_line("[12:00:01.000] [info] prefill: 34% of 93210 tokens");
        QVERIFY2(a.activity().startsWith("Prefill 34% of 93"), qPrintable(a.activity()));
        QVERIFY(a.activity().endsWith("210 tokens"));
        a.add_line("[12:00:02.000] [info] answering");
        QCOMPARE(a.activity(), QString("Answering"));
        a.add_line("[12:00:03.000] [info] idle");
        a.add_line("[12:00:03.001] [info] request: POST /v1/chat/completions 200 3001 ms");
        QCOMPARE(a.activity(), QString("Idle"));
        QCOMPARE(a.request_count(), qint64(2));
        // A new child: the count and activity start again, the log goes on.
        a.add_line("[12:00:04.000] [info] answering");
        a.restart();
        QCOMPARE(a.request_count(), qint64(0));
        QCOMPARE(a.activity(), QString("Idle"));
        QCOMPARE(int(a.lines().size()), 6);
    }

    void the_log_is_bounded() {
        ServerActivity a;
        for (int i = 0; i < ServerActivity::kMaxLines + 250; ++i)
            a.add_line("[12:00:00.000] [info] request: GET /health 200 0 ms #" + QByteArray::number(i));
        QCOMPARE(int(a.lines().size()), ServerActivity::kMaxLines);
        QVERIFY(a.lines().front().endsWith("#250"));  // the oldest went first
        QVERIFY(a.text().endsWith("#" + QString::number(ServerActivity::kMaxLines + 249)));
    }
};

QTEST_MAIN(TestServerLogLine)
#include "test_server_log_line.moc"

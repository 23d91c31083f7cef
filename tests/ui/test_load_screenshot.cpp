// The screenshot mode as docs/user-guide.md describes it, in a child process with its own HOME and
// XDG folders (issue 12: it wrote its question and window geometry into the user's real library;
// issue 14 item 6: it waited out its whole timeout behind a modal error box). Now it uses a
// throw-away data folder unless told otherwise, and prints an error a dialog would show, then exits.
#include <QDir>
#include <QProcess>
#include <QtTest>

#include "tests/ui/support/ui_test_support.h"

#ifndef SNAPDOC_GUI_BINARY
#define SNAPDOC_GUI_BINARY ""
#endif

namespace {

QString repo_file(const QString& relative) {
    return snapdoc::test::source_file(relative);
}

struct Run {
    bool finished = false;
    int exit_code = -1;
    QString err;
};

}  // namespace

class TestLoadScreenshot : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;

    QString xdg_data() const { return dir_.path() + "/xdg-data"; }

    Run run(const QStringList& args, int wait_ms) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HOME", dir_.path() + "/home");
        env.insert("XDG_DATA_HOME", xdg_data());
        env.insert("XDG_STATE_HOME", dir_.path() + "/xdg-state");
        env.insert("XDG_CONFIG_HOME", dir_.path() + "/xdg-config");
        env.insert("XDG_CACHE_HOME", dir_.path() + "/xdg-cache");
        env.remove("SNAPDOC_DATA_DIR");
        env.insert("QT_QPA_PLATFORM", "offscreen");
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SNAPDOC_GUI_BINARY), args);
        Run r;
        if (!p.waitForStarted(30000)) return r;
        r.finished = p.waitForFinished(wait_ms);
        if (!r.finished) {
            p.kill();
            p.waitForFinished(5000);
        }
        r.exit_code = p.exitCode();
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

    QString user_library() const { return xdg_data() + "/snapdoc/library.sqlite"; }

private slots:
    void initTestCase() {
        if (QString(SNAPDOC_GUI_BINARY).isEmpty()) QSKIP("the snapdoc executable is not built");
        QDir().mkpath(dir_.path() + "/home");
    }

    void an_error_is_printed_and_ends_the_run_at_once() {
        // A document that does not exist: the app shows an error box. Unattended, the run used to
        // sit behind it until --timeout (here 200 s, past the wait below).
        const Run r = run({"--screenshot", dir_.path() + "/err.png", "--doc", dir_.path() + "/missing.txt",
                           "--timeout", "200"},
                          60000);
        QVERIFY2(r.finished, "the screenshot run waited behind a modal error");
        QCOMPARE(r.exit_code, 1);
        QVERIFY2(r.err.contains("Cannot open document") && r.err.contains("missing.txt"), qPrintable(r.err));
        QVERIFY(QFileInfo::exists(dir_.path() + "/err.png"));  // still a picture of what happened
        QVERIFY(!QFileInfo::exists(user_library()));
    }

    void a_full_run_leaves_the_users_library_alone() {
        const QString doc = dir_.path() + "/story.txt";
        QFile f(doc);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QFile sample(repo_file("resources/samples/demo-report.txt"));
        QVERIFY(sample.open(QIODevice::ReadOnly));
        f.write(sample.readAll());
        f.close();
        const QString shot = dir_.path() + "/shot.png";
        const Run r = run({"--screenshot", shot, "--model", repo_file("resources/models/snapdoc-demo.gguf"), "--doc",
                           doc, "--ask", "What is the access code for the north gate?", "--timeout", "240"},
                          250000);
        QVERIFY2(r.finished && r.exit_code == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(shot).size() > 0);
        // Nothing written where the user's library lives (XDG data home).
        QVERIFY2(!QFileInfo::exists(user_library()), qPrintable(user_library()));
        QVERIFY(!QFileInfo::exists(xdg_data() + "/snapdoc"));
    }

    void a_named_data_folder_is_used_as_told() {
        const QString data = dir_.path() + "/named";
        const Run r = run({"--screenshot", dir_.path() + "/named.png", "--data-dir", data, "--timeout", "60"}, 60000);
        QVERIFY2(r.finished && r.exit_code == 0, qPrintable(r.err));
        QVERIFY(QFileInfo::exists(data + "/library.sqlite"));
        QVERIFY(!QFileInfo::exists(user_library()));
    }
};

QTEST_MAIN(TestLoadScreenshot)
#include "test_load_screenshot.moc"

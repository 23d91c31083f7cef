// Two app instances on one data folder (issue 14, item 5). A first start of two processes at the
// same moment on a fresh folder must not fail (the schema migration runs inside BEGIN IMMEDIATE
// and the second connection waits on the busy timeout), and two instances saving settings keep
// each other's changes (only what an instance changed is written, merged into the row as it is).
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <cstring>
#include <string>

#include "app/services/app_settings.h"
#include "app/services/library_store.h"
#include "app/services/sqlite_db.h"
#include "app/services/store_schema.h"

using namespace snapdoc::services;

namespace {

// The child's whole life: wait for the start signal (EOF on `gate`), open the store, add one
// document, exit 0; on any error print it to `report` and exit 1.
[[noreturn]] void run_instance(const std::string& path, int gate, int report, int n) {
    char c;
    while (read(gate, &c, 1) > 0) {
    }
    int rc = 0;
    try {
        LibraryStore store(path);
        NewDocument d;
        d.path = d.title = d.content_hash = "doc-" + std::to_string(n);
        d.format = "txt";
        d.text = "text of instance " + std::to_string(n);
        d.byte_size = static_cast<int64_t>(d.text.size());
        store.add_document(d);
    } catch (const std::exception& e) {
        const std::string msg = "instance " + std::to_string(n) + ": " + e.what() + "\n";
        (void)!write(report, msg.data(), msg.size());
        rc = 1;
    }
    _exit(rc);
}

std::string read_all(int fd) {
    std::string all;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) all.append(buf, static_cast<std::size_t>(n));
    return all;
}

}  // namespace

class TestTwoInstances : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const std::string& name) const { return (dir_.path() + "/").toStdString() + name; }

private slots:
    void first_start_of_two_processes_together() {
        for (int round = 0; round < 20; ++round) {
            const std::string p = path("fresh-" + std::to_string(round) + ".sqlite");
            int gate[2], report[2];
            QVERIFY(pipe(gate) == 0 && pipe(report) == 0);
            pid_t pids[2];
            for (int i = 0; i < 2; ++i) {
                pids[i] = fork();
                QVERIFY(pids[i] >= 0);
                if (pids[i] == 0) {
                    close(gate[1]);
                    close(report[0]);
                    run_instance(p, gate[0], report[1], i);
                }
            }
            close(gate[0]);
            close(report[1]);
            close(gate[1]);  // both children start now
            const std::string errors = read_all(report[0]);
            close(report[0]);
            for (pid_t pid : pids) {
                int status = 0;
                waitpid(pid, &status, 0);
                QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                         qPrintable(QString("round %1: %2").arg(round).arg(QString::fromStdString(errors))));
            }
            QVERIFY2(errors.empty(), errors.c_str());

            LibraryStore store(p);
            QCOMPARE(store.db().user_version(), kLatestSchemaVersion);
            Statement check(store.db(), "PRAGMA integrity_check");
            QVERIFY(check.step());
            QCOMPARE(check.text(0), std::string("ok"));
            QCOMPARE(static_cast<int>(store.documents().size()), 2);  // both instances wrote
        }
    }

    void settings_changed_by_two_instances_are_both_kept() {
        const std::string p = path("settings.sqlite");
        LibraryStore store_a(p), store_b(p);
        AppSettings a = load_settings(store_a), a_stored = a;
        AppSettings b = load_settings(store_b), b_stored = b;

        a.snapkv.budget = 777;
        a.generation.sampling.temperature = 0.25f;
        save_settings(store_a, a, a_stored);
        // B still holds the old budget and temperature; writing its own changes must not undo A's.
        b.snapkv.window = 16;
        b.generation.sampling.seed = 99;
        b.window_geometry = "geometry-of-b";
        push_recent(b.recent_documents, "/docs/b.md");
        save_settings(store_b, b, b_stored);
        a.generation.max_new_tokens = 77;  // A's stale window and recent list stay unwritten
        save_settings(store_a, a, a_stored);

        LibraryStore reader(p);
        const AppSettings r = load_settings(reader);
        QCOMPARE(r.snapkv.budget, 777);
        QCOMPARE(r.snapkv.window, 16);
        QCOMPARE(r.generation.sampling.temperature, 0.25f);
        QCOMPARE(r.generation.sampling.seed, uint64_t{99});
        QCOMPARE(r.generation.max_new_tokens, 77);
        QCOMPARE(r.window_geometry, std::string("geometry-of-b"));
        QCOMPARE(r.recent_documents, std::vector<std::string>{"/docs/b.md"});
    }

    void unchanged_settings_are_not_written() {
        LibraryStore store(path("unchanged.sqlite"));
        AppSettings s = load_settings(store), stored = s;
        save_settings(store, s, stored);
        for (const char* key : {"generation", "snapkv", "recent_documents", "recent_models", "window"})
            QVERIFY2(!store.setting(key), key);  // nothing changed: no row at all

        // Rows another instance wrote stay byte for byte as they are while this one does not
        // change them.
        const std::string foreign = R"({"geometry":"other","state":"other","extra":1})";
        store.set_setting("window", foreign);
        s.snapkv.budget = 500;
        save_settings(store, s, stored);
        QCOMPARE(*store.setting("window"), foreign);
        QVERIFY(store.setting("snapkv").has_value());
        QVERIFY(!store.setting("generation"));
        QCOMPARE(load_settings(store).snapkv.budget, 500);
        QCOMPARE(stored.snapkv.budget, 500);  // the baseline follows what was saved
    }
};

QTEST_GUILESS_MAIN(TestTwoInstances)
#include "test_two_instances.moc"

// The SQLite library: schema migrations from every earlier version, WAL, transactions (rollback
// leaves nothing), crash safety (a child process killed mid-transaction and mid-stream of commits
// loses nothing committed and leaves a readable database), settings round trip, and exports.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QtTest>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "app/services/app_settings.h"
#include "app/services/conversation_export.h"
#include "app/services/library_store.h"
#include "app/services/sqlite_db.h"
#include "app/services/store_schema.h"
#include "engine/common/error.h"

using namespace snapdoc::services;

namespace {

NewDocument doc(const std::string& name, const std::string& text = "") {
    NewDocument d;
    d.path = "/docs/" + name + ".txt";
    d.title = name;
    d.content_hash = "hash-" + name;
    d.format = "txt";
    d.text = text.empty() ? "text of " + name : text;
    d.byte_size = static_cast<int64_t>(d.text.size());
    return d;
}

std::string integrity(const std::string& path) {
    SqliteDb db(path);
    Statement st(db, "PRAGMA integrity_check");
    return st.step() ? st.text(0) : "";
}

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Reads whitespace-separated integers the child wrote to the pipe until EOF.
std::vector<int64_t> read_ids(int fd) {
    std::string all;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) all.append(buf, static_cast<std::size_t>(n));
    std::vector<int64_t> ids;
    std::istringstream in(all);
    for (int64_t v; in >> v;) ids.push_back(v);
    return ids;
}

}  // namespace

class TestLibraryStore : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const char* name) const { return (dir_.path() + "/" + name).toStdString(); }

private slots:
    void fresh_database_is_latest_and_wal() {
        LibraryStore store(path("fresh.sqlite"));
        QCOMPARE(store.db().user_version(), kLatestSchemaVersion);
        QCOMPARE(QString::fromStdString(store.db().journal_mode()), QString("wal"));
    }

    void migrates_from_every_earlier_version() {
        for (int from = 0; from < kLatestSchemaVersion; ++from) {
            const std::string p = path(("from-v" + std::to_string(from) + ".sqlite").c_str());
            {
                SqliteDb db(p);
                migrate(db, from);
                QCOMPARE(db.user_version(), from);
                if (from >= 1) {
                    // Data as version 1 stored it.
                    db.exec(
                        "INSERT INTO documents(path, title, content_hash, format, text, byte_size, "
                        "token_count, "
                        "added_at, opened_at) VALUES('/a.txt', 'A', 'h1', 'txt', 'hello', 5, 7, 1, 2)");
                    db.exec("INSERT INTO conversations(document_id, title, created_at) VALUES(1, 'c', 3)");
                    db.exec(
                        "INSERT INTO messages(conversation_id, role, text, created_at) VALUES(1, 'user', "
                        "'q?', 4)");
                }
            }
            LibraryStore store(p);
            QCOMPARE(store.db().user_version(), kLatestSchemaVersion);
            if (from >= 1) {
                const auto docs = store.documents();
                QCOMPARE(docs.size(), std::size_t{1});
                QCOMPARE(QString::fromStdString(docs[0].title), QString("A"));
                QCOMPARE(*docs[0].token_count, 7);
                QVERIFY(docs[0].page_offsets.empty());  // added by v2 with a default
                QVERIFY(docs[0].recognised_pages.empty());  // added by v4 with a default
                QCOMPARE(docs[0].ocr_language, std::string());
                QCOMPARE(store.document_text(1), std::string("hello"));
                const auto conv = store.conversations(1);
                QCOMPARE(conv.size(), std::size_t{1});
                QCOMPARE(conv[0].message_count, 1);
                QCOMPARE(store.messages(conv[0].id)[0].text, std::string("q?"));
            }
            store.set_setting("k", "v");  // v2's settings table exists
            QCOMPARE(*store.setting("k"), std::string("v"));
        }
    }

    void refuses_a_newer_schema() {
        const std::string p = path("newer.sqlite");
        {
            SqliteDb db(p);
            db.set_user_version(kLatestSchemaVersion + 5);
        }
        try {
            LibraryStore store(p);
            QFAIL("a newer schema must be refused");
        } catch (const snapdoc::Error& e) {
            QVERIFY2(QString(e.what()).contains("newer"), e.what());
        }
    }

    void documents_conversations_messages() {
        LibraryStore store(path("crud.sqlite"));
        NewDocument a = doc("a");
        a.page_offsets = {0, 10, 20};
        const int64_t ida = store.add_document(a);
        const int64_t idb = store.add_document(doc("b"));
        QVERIFY(ida != idb);
        // Same content again: the same document, with the new path.
        NewDocument a2 = doc("a");
        a2.path = "/moved/a.txt";
        QCOMPARE(store.add_document(a2), ida);
        QCOMPARE(store.documents().size(), std::size_t{2});
        QCOMPARE(store.document(ida)->path, std::string("/moved/a.txt"));
        QCOMPARE(store.document(ida)->page_offsets, (std::vector<int>{0, 10, 20}));
        QCOMPARE(store.document(ida)->text_chars, static_cast<int64_t>(a.text.size()));
        QVERIFY(!store.document(ida)->token_count);
        store.set_token_count(ida, 1234, "/models/m.gguf");
        QCOMPARE(*store.document(ida)->token_count, 1234);
        QCOMPARE(store.document(ida)->token_model, std::string("/models/m.gguf"));

        const int64_t c = store.create_conversation(ida, "first", "m");
        store.add_message({0, c, "user", "What?", "{}", "{}", 0});
        const int64_t answer = store.add_message(
            {0, c, "assistant", "That.", R"({"budget":64})", R"({"generated_tokens":3})", 0});
        auto msgs = store.messages(c);
        QCOMPARE(msgs.size(), std::size_t{2});
        QCOMPARE(msgs[1].settings_json, std::string(R"({"budget":64})"));
        QVERIFY(msgs[1].created_at > 0);
        store.delete_message(answer);
        QCOMPARE(store.messages(c).size(), std::size_t{1});
        // Removing the document removes its conversations and messages.
        store.remove_document(ida);
        QVERIFY(!store.document(ida));
        QVERIFY(store.conversations(ida).empty());
        QVERIFY(store.messages(c).empty());
    }

    void rolled_back_transaction_leaves_nothing() {
        LibraryStore store(path("rollback.sqlite"));
        store.add_document(doc("kept"));
        {
            Transaction tx(store.db());
            store.db().exec(
                "INSERT INTO documents(path, title, content_hash, format, text, byte_size, added_at, "
                "opened_at) "
                "VALUES('/x', 'x', 'hx', 'txt', 'x', 1, 0, 0)");
            // no commit: destroyed -> ROLLBACK
        }
        QCOMPARE(store.documents().size(), std::size_t{1});
        // An exception inside a write's transaction rolls the whole write back.
        try {
            Transaction tx(store.db());
            Statement(store.db(), "INSERT INTO settings(key, value) VALUES('a', '1')").run();
            Statement(store.db(), "INSERT INTO settings(key, value) VALUES('a', '2')")
                .run();  // duplicate key
            tx.commit();
            QFAIL("the duplicate key must throw");
        } catch (const snapdoc::Error&) {
        }
        QVERIFY(!store.setting("a"));
    }

    void killed_mid_transaction_keeps_committed_data() {
        const std::string p = path("crash-tx.sqlite");
        {
            LibraryStore store(p);
            store.add_document(doc("committed"));
        }
        int ready[2];
        QCOMPARE(pipe(ready), 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            // Child: no Qt here. Open, start a big transaction, say so, and wait to be killed.
            close(ready[0]);
            try {
                LibraryStore store(p);
                Transaction tx(store.db());
                for (int i = 0; i < 2000; ++i)
                    store.db().exec(
                        "INSERT INTO documents(path, title, content_hash, format, text, byte_size, "
                        "added_at, opened_at) VALUES('/u', 'uncommitted', 'hu" +
                        std::to_string(i) + "', 'txt', '" + std::string(2000, 'u') + "', 1, 0, 0)");
                (void)!write(ready[1], "1", 1);
                for (;;) pause();
            } catch (...) {
                _exit(3);
            }
        }
        close(ready[1]);
        char c = 0;
        QCOMPARE(read(ready[0], &c, 1), ssize_t{1});  // the transaction is in progress
        close(ready[0]);
        kill(child, SIGKILL);
        int status = 0;
        waitpid(child, &status, 0);
        QVERIFY(WIFSIGNALED(status));

        QCOMPARE(integrity(p), std::string("ok"));
        LibraryStore store(p);
        const auto docs = store.documents();
        QCOMPARE(docs.size(), std::size_t{1});
        QCOMPARE(docs[0].title, std::string("committed"));
        store.add_document(doc("after"));  // and it is writable again
        QCOMPARE(store.documents().size(), std::size_t{2});
    }

    void killed_while_committing_loses_nothing_reported() {
        const std::string p = path("crash-stream.sqlite");
        int64_t conv = 0;
        {
            LibraryStore store(p);
            conv = store.create_conversation(store.add_document(doc("d")), "c", "m");
        }
        int ids[2];
        QCOMPARE(pipe(ids), 0);
        const pid_t child = fork();
        QVERIFY(child >= 0);
        if (child == 0) {
            close(ids[0]);
            try {
                LibraryStore store(p);
                for (int i = 0;; ++i) {
                    const int64_t id = store.add_message(
                        {0, conv, "assistant", "answer " + std::to_string(i) + std::string(500, 'x'), "{}",
                         "{}", 0});
                    // Reported only after the commit returned.
                    const std::string line = std::to_string(id) + "\n";
                    (void)!write(ids[1], line.data(), line.size());
                }
            } catch (...) {
                _exit(3);
            }
        }
        close(ids[1]);
        // Let it commit for a while, then kill it at an arbitrary point.
        QTest::qWait(300);
        kill(child, SIGKILL);
        int status = 0;
        waitpid(child, &status, 0);
        QVERIFY(WIFSIGNALED(status));
        const std::vector<int64_t> reported = read_ids(ids[0]);
        close(ids[0]);
        QVERIFY2(reported.size() > 5, "the child should have committed several messages");

        QCOMPARE(integrity(p), std::string("ok"));
        LibraryStore store(p);
        std::set<int64_t> present;
        for (const auto& m : store.messages(conv)) present.insert(m.id);
        for (int64_t id : reported)
            QVERIFY2(present.count(id), qPrintable(QString("message %1 lost").arg(id)));
    }

    void settings_round_trip_and_fallbacks() {
        LibraryStore store(path("settings.sqlite"));
        AppSettings s = load_settings(store);
        AppSettings baseline = s;
        QCOMPARE(s.snapkv.budget, snapdoc::SnapKvConfig{}.budget);  // defaults on an empty table
        s.generation.sampling.temperature = 0.7f;
        s.generation.sampling.seed = 42;
        s.generation.max_new_tokens = 99;
        s.generation.ignore_context = true;
        s.generation.device = "cpu";
        s.snapkv.budget = 333;
        s.snapkv.pooling = snapdoc::Pooling::Avg;
        s.snapkv.policy = snapdoc::BudgetPolicy::Adaptive;
        push_recent(s.recent_documents, "/a");
        push_recent(s.recent_documents, "/b");
        push_recent(s.recent_documents, "/a");
        QCOMPARE(s.recent_documents, (std::vector<std::string>{"/a", "/b"}));
        for (int i = 0; i < 20; ++i) push_recent(s.recent_models, "/m" + std::to_string(i));
        QCOMPARE(static_cast<int>(s.recent_models.size()), kMaxRecent);
        s.window_geometry = "Z2VvbQ==";
        s.prefill_probe = {"cpu", 16, 2048, 32, 8, 64, 8192, 128256, 131072, 4000, 61.5};
        save_settings(store, s, baseline);

        const AppSettings r = load_settings(store);
        QCOMPARE(r.generation.sampling.temperature, 0.7f);
        QCOMPARE(r.generation.sampling.seed, uint64_t{42});
        QCOMPARE(r.generation.max_new_tokens, 99);
        QVERIFY(r.generation.ignore_context);
        QCOMPARE(r.generation.device, std::string("cpu"));
        QCOMPARE(r.snapkv.budget, 333);
        QVERIFY(r.snapkv.pooling == snapdoc::Pooling::Avg);
        QVERIFY(r.snapkv.policy == snapdoc::BudgetPolicy::Adaptive);
        QCOMPARE(r.recent_documents, s.recent_documents);
        QCOMPARE(r.recent_models.front(), std::string("/m19"));
        QCOMPARE(r.window_geometry, s.window_geometry);
        QVERIFY(r.prefill_probe == s.prefill_probe);

        // Garbage and invalid values fall back field by field.
        store.set_setting("snapkv",
                          R"({"budget": 8, "window": 32, "pooling": "median"})");  // budget <= window
        store.set_setting("generation", "not json");
        store.set_setting("prefill_probe", R"({"backend": "cpu", "n_layers": 16, "tokens": 100, "seconds": -1})");
        const AppSettings f = load_settings(store);
        QCOMPARE(f.snapkv.budget, snapdoc::SnapKvConfig{}.budget);
        QVERIFY(f.snapkv.pooling == snapdoc::Pooling::Max);
        QCOMPARE(f.generation.max_new_tokens, GenerationSettings{}.max_new_tokens);
        QVERIFY(f.prefill_probe == PrefillProbeSettings{});  // a probe that measured nothing is none
        store.set_setting("generation", R"({"device": "tpu"})");  // unknown device: automatic
        QCOMPARE(load_settings(store).generation.device, std::string("auto"));
    }

    void export_markdown_and_json_atomically() {
        ConversationExport c;
        c.document_title = "The Lighthouse";
        c.document_path = "/docs/l.md";
        c.model = "/models/m";
        c.messages.push_back({1, 1, "user", "Who rang the bell?", "{}", "{}", 1700000000});
        c.messages.push_back(
            {2, 1, "assistant", "Pebble the cat.", R"({"snapkv":{"budget":256}})",
             R"({"generated_tokens":4,"prompt_tokens":900,"decode_tokens_per_s":50.5,"kept_fraction":0.25})",
             1700000001});
        const std::string md = conversation_markdown(c);
        QVERIFY(md.find("# The Lighthouse") == 0);
        QVERIFY(md.find("## Question\n\nWho rang the bell?") != std::string::npos);
        QVERIFY(md.find("## Answer\n\nPebble the cat.") != std::string::npos);
        QVERIFY(md.find("4 generated") != std::string::npos);
        QVERIFY(md.find("KV kept 25.0%") != std::string::npos);

        const std::string out = path("conv.json");
        {
            std::ofstream old(out);
            old << "old content";
        }
        export_conversation(c, out);
        const auto j = nlohmann::json::parse(read_all(out));
        QCOMPARE(j["messages"].size(), std::size_t{2});
        QCOMPARE(j["messages"][1]["settings"]["snapkv"]["budget"].get<int>(), 256);
        QCOMPARE(j["messages"][0]["created_at"].get<std::string>(), std::string("2023-11-14T22:13:20Z"));
        export_conversation(c, path("conv.md"));
        QCOMPARE(read_all(path("conv.md")), md);
        // No temporary files left next to the exports.
        const QStringList left = QDir(dir_.path()).entryList({"conv*"}, QDir::Files);
        QCOMPARE(left, QStringList({"conv.json", "conv.md"}));
        // An unwritable target fails with an error, not a partial file.
        QVERIFY_THROWS_EXCEPTION(snapdoc::Error, export_conversation(c, "/nonexistent-dir/x.md"));
    }
};

QTEST_GUILESS_MAIN(TestLibraryStore)
#include "test_library_store.moc"

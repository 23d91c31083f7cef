// Conversation storage for multi-turn chat (schema 3): rename, system prompt, search, delete, the
// answering model and the citations stored per message, the migration from schema 2 (answers get
// the conversation's model), and exports that credit each answer to its own model, list its
// citations, and take their format from the chosen filter.
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "app/services/conversation_export.h"
#include "app/services/library_store.h"
#include "app/services/sqlite_db.h"
#include "app/services/store_schema.h"

using namespace snapdoc::services;

namespace {

NewDocument doc(const std::string& name) {
    NewDocument d;
    d.path = "/docs/" + name + ".txt";
    d.title = name;
    d.content_hash = "hash-" + name;
    d.format = "txt";
    d.text = "text of " + name;
    d.byte_size = static_cast<int64_t>(d.text.size());
    return d;
}

MessageRecord message(int64_t conversation, const std::string& role, const std::string& text,
                      const std::string& model = "", const std::string& citations = "[]") {
    MessageRecord m;
    m.conversation_id = conversation;
    m.role = role;
    m.text = text;
    m.model = model;
    m.citations_json = citations;
    return m;
}

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

class TestConversationStore : public QObject {
    Q_OBJECT
    QTemporaryDir dir_;
    std::string path(const char* name) const { return (dir_.path() + "/" + name).toStdString(); }

private slots:
    void rename_system_prompt_delete() {
        LibraryStore store(path("conv.sqlite"));
        const int64_t d = store.add_document(doc("a"));
        const int64_t c = store.create_conversation(d, "first question", "/m/a.gguf");
        QCOMPARE(store.conversation(c)->system_prompt, std::string());
        store.rename_conversation(c, "Renamed");
        store.set_conversation_system_prompt(c, "Answer in one sentence.");
        const auto rec = store.conversation(c);
        QVERIFY(rec);
        QCOMPARE(rec->title, std::string("Renamed"));
        QCOMPARE(rec->system_prompt, std::string("Answer in one sentence."));
        QCOMPARE(store.conversations(d).front().system_prompt, std::string("Answer in one sentence."));
        store.add_message(message(c, "user", "q"));
        store.delete_conversation(c);
        QVERIFY(!store.conversation(c));
        QVERIFY(store.messages(c).empty());
    }

    void answering_model_and_citations_round_trip() {
        LibraryStore store(path("msg.sqlite"));
        const int64_t d = store.add_document(doc("a"));
        const int64_t c = store.create_conversation(d, "t", "/m/first.gguf");
        store.add_message(message(c, "user", "q"));
        store.add_message(message(c, "assistant", "a", "/m/second.gguf",
                                  R"([{"first_token":3,"last_token":9,"weight":0.5}])"));
        const auto msgs = store.messages(c);
        QCOMPARE(msgs[1].model, std::string("/m/second.gguf"));
        QCOMPARE(nlohmann::json::parse(msgs[1].citations_json)[0]["last_token"].get<int>(), 9);
        QCOMPARE(msgs[0].citations_json, std::string("[]"));
    }

    void search_matches_questions_answers_and_titles_literally() {
        LibraryStore store(path("search.sqlite"));
        const int64_t d = store.add_document(doc("a"));
        const int64_t other_doc = store.add_document(doc("b"));
        const int64_t c1 = store.create_conversation(d, "Gate codes", "m");
        store.add_message(message(c1, "user", "What is the access code for the north gate?"));
        store.add_message(message(c1, "assistant", "The access code for the north gate is 7391."));
        const int64_t c2 = store.create_conversation(d, "Offices", "m");
        store.add_message(message(c2, "user", "Which batch is 100% green?"));
        const int64_t c3 = store.create_conversation(other_doc, "North of elsewhere", "m");
        store.add_message(message(c3, "user", "north?"));

        auto hits = store.search_conversations(d, "NORTH GATE");  // case-insensitive
        QCOMPARE(hits.size(), std::size_t{1});                    // not the other document's
        QCOMPARE(hits[0].id, c1);
        QVERIFY2(hits[0].excerpt.find("north gate") != std::string::npos, hits[0].excerpt.c_str());
        hits = store.search_conversations(d, "7391");  // an answer's text
        QCOMPARE(hits.size(), std::size_t{1});
        hits = store.search_conversations(d, "offices");  // a title
        QCOMPARE(hits.size(), std::size_t{1});
        QCOMPARE(hits[0].id, c2);
        hits = store.search_conversations(d, "100%");  // % is literal, not a wildcard
        QCOMPARE(hits.size(), std::size_t{1});
        QCOMPARE(hits[0].id, c2);
        QVERIFY(store.search_conversations(d, "0%g").empty());
        QVERIFY(store.search_conversations(d, "_").empty());
        QCOMPARE(store.search_conversations(d, "").size(), std::size_t{2});  // empty: all
    }

    void migration_from_2_gives_old_answers_the_conversation_model() {
        const std::string p = path("v2.sqlite");
        {
            SqliteDb db(p);
            migrate(db, 2);
            db.exec(
                "INSERT INTO documents(path, title, content_hash, format, text, byte_size, added_at, "
                "opened_at) VALUES('/a.txt', 'A', 'h1', 'txt', 'hello', 5, 1, 2)");
            db.exec("INSERT INTO conversations(document_id, title, created_at, model) VALUES(1, 'c', 3, '/m/x')");
            db.exec("INSERT INTO messages(conversation_id, role, text, created_at) VALUES(1, 'user', 'q', 4)");
            db.exec(
                "INSERT INTO messages(conversation_id, role, text, created_at) VALUES(1, 'assistant', 'a', 5)");
        }
        LibraryStore store(p);
        QCOMPARE(store.db().user_version(), snapdoc::services::kLatestSchemaVersion);  // migrated through every version
        const auto msgs = store.messages(1);
        QCOMPARE(msgs[0].model, std::string());  // questions have no model
        QCOMPARE(msgs[1].model, std::string("/m/x"));
        QCOMPARE(msgs[1].citations_json, std::string("[]"));
        QCOMPARE(store.conversation(1)->system_prompt, std::string());
    }

    // Defect (issue 12): answers were exported under the model loaded when the conversation began.
    void exports_name_the_model_that_answered() {
        ConversationExport c;
        c.document_title = "Report";
        c.model = "/m/first.gguf";
        c.messages.push_back(message(1, "user", "q1"));
        c.messages.push_back(message(1, "assistant", "a1", "/m/first.gguf"));
        c.messages.push_back(message(1, "user", "q2"));
        c.messages.push_back(message(1, "assistant", "a2", "/m/second.gguf"));
        const std::string md = conversation_markdown(c);
        QVERIFY2(md.find("## Answer\n\na2\n\n*model `/m/second.gguf`") != std::string::npos, md.c_str());
        QVERIFY2(md.find("- Models: `/m/first.gguf`, `/m/second.gguf`\n") != std::string::npos, md.c_str());
        const auto j = nlohmann::json::parse(conversation_json(c));
        QCOMPARE(j["messages"][1]["model"].get<std::string>(), std::string("/m/first.gguf"));
        QCOMPARE(j["messages"][3]["model"].get<std::string>(), std::string("/m/second.gguf"));
        QCOMPARE(j["models"].size(), std::size_t{2});
        QVERIFY(!j["messages"][0].contains("model"));
    }

    void exports_list_citations() {
        ConversationExport c;
        c.messages.push_back(message(1, "user", "q"));
        c.messages.push_back(message(
            1, "assistant", "a", "m",
            R"([{"first_token":120,"last_token":140,"weight":0.61,"begin":400,"end":470,"excerpt":"The code is 7391."}])"));
        const std::string md = conversation_markdown(c);
        QVERIFY2(md.find("Sources:\n\n1. “The code is 7391.” (tokens 120–140, weight 0.61)") != std::string::npos,
                 md.c_str());
        const auto j = nlohmann::json::parse(conversation_json(c));
        QCOMPARE(j["messages"][1]["citations"][0]["excerpt"].get<std::string>(), std::string("The code is 7391."));
        QCOMPARE(j["messages"][1]["citations"][0]["first_token"].get<int>(), 120);
    }

    // Issue 41: a PDF's citations name their page in both exports.
    void exports_name_a_citations_page() {
        ConversationExport c;
        c.messages.push_back(message(1, "user", "q"));
        c.messages.push_back(message(
            1, "assistant", "a", "m",
            R"([{"first_token":120,"last_token":140,"weight":0.61,"page":3,"excerpt":"The code is 7391."}])"));
        const std::string md = conversation_markdown(c);
        QVERIFY2(md.find("1. “The code is 7391.” (page 3, tokens 120–140, weight 0.61)") != std::string::npos,
                 md.c_str());
        const auto j = nlohmann::json::parse(conversation_json(c));
        QCOMPARE(j["messages"][1]["citations"][0]["page"].get<int>(), 3);
    }

    // Defect (issue 12): the format followed the typed name, not the chosen filter.
    void export_format_follows_the_filter() {
        QCOMPARE(export_file_for("/t/notes", ExportFormat::Json).string(), std::string("/t/notes.json"));
        QCOMPARE(export_file_for("/t/notes", ExportFormat::Markdown).string(), std::string("/t/notes.md"));
        QCOMPARE(export_file_for("/t/notes.md", ExportFormat::Json).string(), std::string("/t/notes.md.json"));
        QCOMPARE(export_file_for("/t/notes.json", ExportFormat::Markdown).string(),
                 std::string("/t/notes.json.md"));
        QCOMPARE(export_file_for("/t/notes.json", ExportFormat::Json).string(), std::string("/t/notes.json"));
        ConversationExport c;
        c.messages.push_back(message(1, "user", "q"));
        const std::string out = path("typed-as.md");
        export_conversation(c, out, ExportFormat::Json);  // the filter wins over the name
        QVERIFY(nlohmann::json::accept(read_all(out)));
    }
};

QTEST_GUILESS_MAIN(TestConversationStore)
#include "test_conversation_store.moc"

#include "app/services/library_store.h"

#include <ctime>
#include <nlohmann/json.hpp>

#include "app/services/sqlite_db.h"
#include "app/services/store_schema.h"

namespace snapdoc::services {

namespace {

int64_t now() {
    return static_cast<int64_t>(std::time(nullptr));
}

std::string offsets_json(const std::vector<int>& v) {
    return nlohmann::json(v).dump();
}

std::vector<int> parse_offsets(const std::string& s) {
    const auto j = nlohmann::json::parse(s, nullptr, /*allow_exceptions=*/false);
    return j.is_array() ? j.get<std::vector<int>>() : std::vector<int>{};
}

constexpr const char* kDocumentColumns =
    "id, path, title, content_hash, format, byte_size, length(CAST(text AS BLOB)), token_count, token_model, "
    "page_offsets, added_at, opened_at";

DocumentRecord read_document(const Statement& st) {
    DocumentRecord d;
    d.id = st.int64(0);
    d.path = st.text(1);
    d.title = st.text(2);
    d.content_hash = st.text(3);
    d.format = st.text(4);
    d.byte_size = st.int64(5);
    d.text_chars = st.int64(6);
    if (!st.is_null(7)) d.token_count = static_cast<int>(st.int64(7));
    d.token_model = st.text(8);
    d.page_offsets = parse_offsets(st.text(9));
    d.added_at = st.int64(10);
    d.opened_at = st.int64(11);
    return d;
}

}  // namespace

LibraryStore::LibraryStore(const std::filesystem::path& db_path)
    : path_(db_path), db_(std::make_unique<SqliteDb>(db_path.string())) {
    migrate(*db_);
}

LibraryStore::~LibraryStore() = default;

int64_t LibraryStore::add_document(const NewDocument& doc) {
    Transaction tx(*db_);
    Statement find(*db_, "SELECT id FROM documents WHERE content_hash = ?");
    find.bind(1, doc.content_hash);
    int64_t id = 0;
    if (find.step()) {
        id = find.int64(0);
        Statement up(*db_,
                     "UPDATE documents SET path = ?, title = ?, byte_size = ?, opened_at = ? WHERE id = ?");
        up.bind(1, doc.path).bind(2, doc.title).bind(3, doc.byte_size).bind(4, now()).bind(5, id).run();
    } else {
        Statement ins(
            *db_,
            "INSERT INTO documents(path, title, content_hash, format, text, byte_size, page_offsets, "
            "added_at, opened_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)");
        const int64_t t = now();
        ins.bind(1, doc.path)
            .bind(2, doc.title)
            .bind(3, doc.content_hash)
            .bind(4, doc.format)
            .bind(5, doc.text);
        ins.bind(6, doc.byte_size).bind(7, offsets_json(doc.page_offsets)).bind(8, t).bind(9, t).run();
        id = db_->last_insert_id();
    }
    tx.commit();
    return id;
}

std::vector<DocumentRecord> LibraryStore::documents() {
    Statement st(
        *db_, std::string("SELECT ") + kDocumentColumns + " FROM documents ORDER BY opened_at DESC, id DESC");
    std::vector<DocumentRecord> out;
    while (st.step()) out.push_back(read_document(st));
    return out;
}

std::optional<DocumentRecord> LibraryStore::document(int64_t id) {
    Statement st(*db_, std::string("SELECT ") + kDocumentColumns + " FROM documents WHERE id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_document(st);
}

std::string LibraryStore::document_text(int64_t id) {
    Statement st(*db_, "SELECT text FROM documents WHERE id = ?");
    st.bind(1, id);
    return st.step() ? st.text(0) : std::string();
}

void LibraryStore::set_token_count(int64_t id, int tokens, const std::string& model) {
    Transaction tx(*db_);
    Statement(*db_, "UPDATE documents SET token_count = ?, token_model = ? WHERE id = ?")
        .bind(1, tokens)
        .bind(2, model)
        .bind(3, id)
        .run();
    tx.commit();
}

void LibraryStore::touch_document(int64_t id) {
    Transaction tx(*db_);
    Statement(*db_, "UPDATE documents SET opened_at = ? WHERE id = ?").bind(1, now()).bind(2, id).run();
    tx.commit();
}

void LibraryStore::remove_document(int64_t id) {
    Transaction tx(*db_);
    Statement(*db_, "DELETE FROM documents WHERE id = ?").bind(1, id).run();
    tx.commit();
}

int64_t LibraryStore::create_conversation(int64_t document_id, const std::string& title,
                                          const std::string& model) {
    Transaction tx(*db_);
    Statement(*db_, "INSERT INTO conversations(document_id, title, created_at, model) VALUES(?, ?, ?, ?)")
        .bind(1, document_id)
        .bind(2, title)
        .bind(3, now())
        .bind(4, model)
        .run();
    const int64_t id = db_->last_insert_id();
    tx.commit();
    return id;
}

std::vector<ConversationRecord> LibraryStore::conversations(int64_t document_id) {
    Statement st(*db_,
                 "SELECT c.id, c.document_id, c.title, c.model, c.created_at, "
                 "(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id) "
                 "FROM conversations c WHERE c.document_id = ? ORDER BY c.id DESC");
    st.bind(1, document_id);
    std::vector<ConversationRecord> out;
    while (st.step())
        out.push_back(
            {st.int64(0), st.int64(1), st.text(2), st.text(3), st.int64(4), static_cast<int>(st.int64(5))});
    return out;
}

void LibraryStore::delete_conversation(int64_t id) {
    Transaction tx(*db_);
    Statement(*db_, "DELETE FROM conversations WHERE id = ?").bind(1, id).run();
    tx.commit();
}

int64_t LibraryStore::add_message(const MessageRecord& m) {
    Transaction tx(*db_);
    Statement(*db_,
              "INSERT INTO messages(conversation_id, role, text, settings_json, stats_json, created_at) "
              "VALUES(?, ?, ?, ?, ?, ?)")
        .bind(1, m.conversation_id)
        .bind(2, m.role)
        .bind(3, m.text)
        .bind(4, m.settings_json)
        .bind(5, m.stats_json)
        .bind(6, now())
        .run();
    const int64_t id = db_->last_insert_id();
    tx.commit();
    return id;
}

std::vector<MessageRecord> LibraryStore::messages(int64_t conversation_id) {
    Statement st(
        *db_,
        "SELECT id, conversation_id, role, text, settings_json, stats_json, created_at FROM messages "
        "WHERE conversation_id = ? ORDER BY id");
    st.bind(1, conversation_id);
    std::vector<MessageRecord> out;
    while (st.step())
        out.push_back(
            {st.int64(0), st.int64(1), st.text(2), st.text(3), st.text(4), st.text(5), st.int64(6)});
    return out;
}

void LibraryStore::delete_message(int64_t id) {
    Transaction tx(*db_);
    Statement(*db_, "DELETE FROM messages WHERE id = ?").bind(1, id).run();
    tx.commit();
}

std::optional<std::string> LibraryStore::setting(const std::string& key) {
    Statement st(*db_, "SELECT value FROM settings WHERE key = ?");
    st.bind(1, key);
    if (!st.step()) return std::nullopt;
    return st.text(0);
}

void LibraryStore::set_setting(const std::string& key, const std::string& value) {
    set_settings({{key, value}});
}

void LibraryStore::set_settings(const std::vector<std::pair<std::string, std::string>>& values) {
    Transaction tx(*db_);
    Statement st(*db_,
                 "INSERT INTO settings(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = "
                 "excluded.value");
    for (const auto& [key, value] : values) st.bind(1, key).bind(2, value).run();
    tx.commit();
}

void LibraryStore::update_setting(
    const std::string& key, const std::function<std::string(const std::optional<std::string>&)>& update) {
    Transaction tx(*db_);
    const std::string value = update(setting(key));
    Statement(*db_,
              "INSERT INTO settings(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = "
              "excluded.value")
        .bind(1, key)
        .bind(2, value)
        .run();
    tx.commit();
}

}  // namespace snapdoc::services

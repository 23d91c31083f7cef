#include "app/services/library_store.h"

#include <algorithm>
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
    "page_offsets, added_at, opened_at, recognised_pages, ocr_language";

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
    d.recognised_pages = parse_offsets(st.text(12));
    d.ocr_language = st.text(13);
    return d;
}

constexpr const char* kConversationColumns =
    "c.id, c.document_id, c.title, c.model, c.created_at, "
    "(SELECT count(*) FROM messages m WHERE m.conversation_id = c.id), c.system_prompt";

ConversationRecord read_conversation(const Statement& st) {
    ConversationRecord c;
    c.id = st.int64(0);
    c.document_id = st.int64(1);
    c.title = st.text(2);
    c.model = st.text(3);
    c.created_at = st.int64(4);
    c.message_count = static_cast<int>(st.int64(5));
    c.system_prompt = st.text(6);
    return c;
}

// LIKE takes the user's text literally: its own wildcards and the escape character are escaped.
std::string like_escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (ch == '%' || ch == '_' || ch == '\\') out += '\\';
        out += ch;
    }
    return out;
}

char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool utf8_continuation(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// About 80 bytes of `text` around the first (ASCII case-insensitive) occurrence of `query`, cut at
// UTF-8 character boundaries, with "…" where it was cut; newlines become spaces.
std::string excerpt_around(const std::string& text, const std::string& query) {
    auto it = std::search(text.begin(), text.end(), query.begin(), query.end(),
                          [](char a, char b) { return ascii_lower(a) == ascii_lower(b); });
    const std::size_t hit = it == text.end() ? 0 : static_cast<std::size_t>(it - text.begin());
    std::size_t begin = hit > 30 ? hit - 30 : 0;
    std::size_t end = std::min(text.size(), hit + query.size() + 50);
    while (begin > 0 && utf8_continuation(text[begin])) --begin;
    while (end < text.size() && utf8_continuation(text[end])) ++end;
    std::string out = (begin > 0 ? "…" : "") + text.substr(begin, end - begin) + (end < text.size() ? "…" : "");
    for (char& ch : out)
        if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
    return out;
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
        // The same text again: a scan recognised again says so again (the pages are the same).
        Statement up(*db_,
                     "UPDATE documents SET path = ?, title = ?, byte_size = ?, opened_at = ?, recognised_pages = ?, "
                     "ocr_language = ? WHERE id = ?");
        up.bind(1, doc.path).bind(2, doc.title).bind(3, doc.byte_size).bind(4, now());
        up.bind(5, offsets_json(doc.recognised_pages)).bind(6, doc.ocr_language).bind(7, id).run();
    } else {
        Statement ins(
            *db_,
            "INSERT INTO documents(path, title, content_hash, format, text, byte_size, page_offsets, "
            "added_at, opened_at, recognised_pages, ocr_language) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        const int64_t t = now();
        ins.bind(1, doc.path)
            .bind(2, doc.title)
            .bind(3, doc.content_hash)
            .bind(4, doc.format)
            .bind(5, doc.text);
        ins.bind(6, doc.byte_size).bind(7, offsets_json(doc.page_offsets)).bind(8, t).bind(9, t);
        ins.bind(10, offsets_json(doc.recognised_pages)).bind(11, doc.ocr_language).run();
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
    Statement st(*db_, std::string("SELECT ") + kConversationColumns +
                           " FROM conversations c WHERE c.document_id = ? ORDER BY c.id DESC");
    st.bind(1, document_id);
    std::vector<ConversationRecord> out;
    while (st.step()) out.push_back(read_conversation(st));
    return out;
}

std::optional<ConversationRecord> LibraryStore::conversation(int64_t id) {
    Statement st(*db_, std::string("SELECT ") + kConversationColumns + " FROM conversations c WHERE c.id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return read_conversation(st);
}

void LibraryStore::rename_conversation(int64_t id, const std::string& title) {
    Transaction tx(*db_);
    Statement(*db_, "UPDATE conversations SET title = ? WHERE id = ?").bind(1, title).bind(2, id).run();
    tx.commit();
}

void LibraryStore::set_conversation_system_prompt(int64_t id, const std::string& system_prompt) {
    Transaction tx(*db_);
    Statement(*db_, "UPDATE conversations SET system_prompt = ? WHERE id = ?")
        .bind(1, system_prompt)
        .bind(2, id)
        .run();
    tx.commit();
}

std::vector<ConversationRecord> LibraryStore::search_conversations(int64_t document_id,
                                                                   const std::string& query) {
    if (query.empty()) return conversations(document_id);
    const std::string pattern = "%" + like_escape(query) + "%";
    Statement st(*db_, std::string("SELECT ") + kConversationColumns +
                           ", (SELECT m.text FROM messages m WHERE m.conversation_id = c.id AND m.text LIKE ? "
                           "ESCAPE '\\' ORDER BY m.id LIMIT 1) AS hit FROM conversations c "
                           "WHERE c.document_id = ? AND (c.title LIKE ? ESCAPE '\\' OR hit IS NOT NULL) "
                           "ORDER BY c.id DESC");
    st.bind(1, pattern).bind(2, document_id).bind(3, pattern);
    std::vector<ConversationRecord> out;
    while (st.step()) {
        ConversationRecord c = read_conversation(st);
        c.excerpt = excerpt_around(st.is_null(7) ? c.title : st.text(7), query);
        out.push_back(std::move(c));
    }
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
              "INSERT INTO messages(conversation_id, role, text, settings_json, stats_json, created_at, "
              "model, citations_json) VALUES(?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(1, m.conversation_id)
        .bind(2, m.role)
        .bind(3, m.text)
        .bind(4, m.settings_json)
        .bind(5, m.stats_json)
        .bind(6, now())
        .bind(7, m.model)
        .bind(8, m.citations_json)
        .run();
    const int64_t id = db_->last_insert_id();
    tx.commit();
    return id;
}

std::vector<MessageRecord> LibraryStore::messages(int64_t conversation_id) {
    Statement st(
        *db_,
        "SELECT id, conversation_id, role, text, settings_json, stats_json, created_at, model, citations_json "
        "FROM messages WHERE conversation_id = ? ORDER BY id");
    st.bind(1, conversation_id);
    std::vector<MessageRecord> out;
    while (st.step())
        out.push_back({st.int64(0), st.int64(1), st.text(2), st.text(3), st.text(4), st.text(5), st.int64(6),
                       st.text(7), st.text(8)});
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

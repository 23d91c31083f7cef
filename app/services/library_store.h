// The persistent library: documents (with their extracted text), conversations per document, the
// messages of each conversation (with the settings and statistics they were produced with) and the
// app's settings, in one SQLite database. Every write runs in its own transaction. Used from the
// GUI thread only; it is Qt-free so tests and tools can use it directly.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace snapdoc::services {

class SqliteDb;

struct NewDocument {
    std::string path;
    std::string title;
    std::string content_hash;       // of the extracted text; the same text opened twice is one document
    std::string format;             // "txt", "md", "html", "pdf"
    std::string text;               // extracted UTF-8 text
    int64_t byte_size = 0;          // of the file on disk
    std::vector<int> page_offsets;  // PDF: UTF-16 offset in `text` where each page starts
    // PDF pages read by OCR (0-based) and Tesseract's language for them: the document view says
    // their text was recognised, not read, whenever the document is shown.
    std::vector<int> recognised_pages;
    std::string ocr_language;
};

struct DocumentRecord {
    int64_t id = 0;
    std::string path, title, content_hash, format;
    int64_t byte_size = 0;
    int64_t text_chars = 0;  // UTF-8 bytes of the extracted text
    std::optional<int> token_count;
    std::string token_model;  // model whose tokenizer produced token_count
    std::vector<int> page_offsets;
    int64_t added_at = 0, opened_at = 0;  // unix seconds
    std::vector<int> recognised_pages = {};  // PDF pages read by OCR, 0-based
    std::string ocr_language = {};
};

struct ConversationRecord {
    int64_t id = 0, document_id = 0;
    std::string title, model;  // model: the one loaded when the conversation began
    int64_t created_at = 0;
    int message_count = 0;
    std::string system_prompt = {};  // "" = the default system prompt from Settings
    std::string excerpt = {};   // search results only: the matching text around the hit
};

struct MessageRecord {
    int64_t id = 0, conversation_id = 0;
    std::string role;  // "user" or "assistant"
    std::string text;
    std::string settings_json = "{}";  // SnapKV + sampling settings the answer used
    std::string stats_json = "{}";     // timings, token counts, KV bytes
    int64_t created_at = 0;
    std::string model = {};             // answers: the model that produced this answer
    std::string citations_json = "[]";  // answers: the cited passages (see ui/chat/citation_format.h)
};

class LibraryStore {
public:
    // Opens or creates the database and migrates it to the latest schema.
    explicit LibraryStore(const std::filesystem::path& db_path);
    ~LibraryStore();

    // Adds a document, or (same content hash) refreshes the existing one's path and opened time.
    int64_t add_document(const NewDocument& doc);
    std::vector<DocumentRecord> documents();  // most recently opened first
    std::optional<DocumentRecord> document(int64_t id);
    std::string document_text(int64_t id);
    void set_token_count(int64_t id, int tokens, const std::string& model);
    void touch_document(int64_t id);
    void remove_document(int64_t id);  // with its conversations and messages

    int64_t create_conversation(int64_t document_id, const std::string& title, const std::string& model);
    std::vector<ConversationRecord> conversations(int64_t document_id);  // newest first
    std::optional<ConversationRecord> conversation(int64_t id);
    void rename_conversation(int64_t id, const std::string& title);
    void set_conversation_system_prompt(int64_t id, const std::string& system_prompt);
    void delete_conversation(int64_t id);  // with its messages
    // Conversations of `document_id` whose title or any question/answer contains `query`
    // (case-insensitive for ASCII, the text taken literally: % and _ are not wildcards), newest
    // first, each with an excerpt of the first matching message. An empty query lists them all.
    std::vector<ConversationRecord> search_conversations(int64_t document_id, const std::string& query);

    int64_t add_message(const MessageRecord& message);  // id and created_at are assigned
    std::vector<MessageRecord> messages(int64_t conversation_id);
    void delete_message(int64_t id);

    std::optional<std::string> setting(const std::string& key);
    void set_setting(const std::string& key, const std::string& value);
    // Several keys in one transaction: all of them or none.
    void set_settings(const std::vector<std::pair<std::string, std::string>>& values);
    // Read-modify-write of one key in one write transaction: `update` gets the stored value (or
    // nullopt) and returns the new one. Another instance on the same database cannot write the key
    // in between, so merging a change into the row as it is now loses nothing.
    void update_setting(const std::string& key,
                        const std::function<std::string(const std::optional<std::string>&)>& update);

    const std::filesystem::path& path() const { return path_; }
    SqliteDb& db() { return *db_; }

private:
    std::filesystem::path path_;
    std::unique_ptr<SqliteDb> db_;
};

}  // namespace snapdoc::services

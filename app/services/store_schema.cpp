#include "app/services/store_schema.h"

#include <spdlog/spdlog.h>

#include <string>

#include "app/services/sqlite_db.h"
#include "engine/common/error.h"

namespace snapdoc::services {

namespace {

// Index i holds the SQL that takes the schema from version i to i + 1. Never edit a shipped entry:
// databases in the wild are at every earlier version; add a new one instead.
constexpr const char* kMigrations[] = {
    // 0 -> 1: documents, conversations and messages.
    R"sql(
    CREATE TABLE documents(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        title TEXT NOT NULL,
        content_hash TEXT NOT NULL UNIQUE,
        format TEXT NOT NULL,
        text TEXT NOT NULL,
        byte_size INTEGER NOT NULL,
        token_count INTEGER,
        added_at INTEGER NOT NULL,
        opened_at INTEGER NOT NULL);
    CREATE TABLE conversations(
        id INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        created_at INTEGER NOT NULL);
    CREATE TABLE messages(
        id INTEGER PRIMARY KEY,
        conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK(role IN ('user', 'assistant')),
        text TEXT NOT NULL,
        settings_json TEXT NOT NULL DEFAULT '{}',
        stats_json TEXT NOT NULL DEFAULT '{}',
        created_at INTEGER NOT NULL);
    CREATE INDEX messages_by_conversation ON messages(conversation_id, id);
    CREATE INDEX conversations_by_document ON conversations(document_id, id);
    )sql",
    // 1 -> 2: app settings; PDF page starts; which model's tokenizer counted the tokens (a count
    // is only meaningful for that vocabulary); which model a conversation was held with.
    R"sql(
    CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    ALTER TABLE documents ADD COLUMN page_offsets TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE documents ADD COLUMN token_model TEXT NOT NULL DEFAULT '';
    ALTER TABLE conversations ADD COLUMN model TEXT NOT NULL DEFAULT '';
    )sql",
    // 2 -> 3: multi-turn conversations. A conversation's own system prompt ('' = the default from
    // Settings); the model that produced each answer (the conversation's model named only the one
    // loaded when it began, so exports credited answers to the wrong model: existing answers get
    // that model, the best that is known); the passages each answer cites (JSON array).
    R"sql(
    ALTER TABLE conversations ADD COLUMN system_prompt TEXT NOT NULL DEFAULT '';
    ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT '';
    ALTER TABLE messages ADD COLUMN citations_json TEXT NOT NULL DEFAULT '[]';
    UPDATE messages SET model = (SELECT c.model FROM conversations c WHERE c.id = messages.conversation_id)
        WHERE role = 'assistant';
    )sql",
    // 3 -> 4: a PDF's pages read by OCR (0-based, JSON array) and the language they were read in,
    // so a scan reopened from the library still says which pages were recognised, not read.
    R"sql(
    ALTER TABLE documents ADD COLUMN recognised_pages TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE documents ADD COLUMN ocr_language TEXT NOT NULL DEFAULT '';
    )sql",
};
static_assert(std::size(kMigrations) == kLatestSchemaVersion, "one migration per schema version");

}  // namespace

void migrate(SqliteDb& db, int target) {
    // The version is read inside the write transaction (BEGIN IMMEDIATE): two instances starting
    // together on a fresh folder used to both read version 0 and the second died with "table
    // documents already exists". Now the second waits (busy timeout), then sees the new version.
    for (;;) {
        Transaction tx(db);
        const int v = db.user_version();
        if (v > kLatestSchemaVersion)
            throw Error("the library database has schema version " + std::to_string(v) +
                        ", newer than this snapdoc understands (" + std::to_string(kLatestSchemaVersion) +
                        "); use a newer snapdoc or another data directory");
        if (v >= target) {
            tx.commit();
            return;
        }
        db.exec(kMigrations[v]);
        db.set_user_version(v + 1);
        tx.commit();
        spdlog::info("library database migrated to schema version {}", v + 1);
    }
}

}  // namespace snapdoc::services

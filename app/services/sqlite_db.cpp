#include "app/services/sqlite_db.h"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include "engine/common/error.h"

namespace snapdoc::services {

namespace {
// How long a statement waits for another connection's lock before failing with "database is locked".
constexpr int kBusyTimeoutMs = 5000;
}  // namespace

SqliteDb::SqliteDb(const std::string& path) : path_(path) {
    const int rc = sqlite3_open_v2(
        path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw Error("cannot open database " + path + ": " + msg);
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);
    exec("PRAGMA foreign_keys = ON");
    // WAL: readers never block the writer and a torn write can only lose the uncommitted tail of
    // the log. FULL makes each commit durable before it returns.
    // Switching to WAL needs an exclusive lock, and SQLite returns SQLITE_BUSY at once instead of
    // calling the busy handler when another connection (a second app instance starting at the
    // same moment on a fresh folder) holds a lock. So retry it for as long as the busy timeout;
    // the mode is stored in the file, so the other instance may well have switched it already.
    for (int waited_ms = 0; journal_mode() != "wal"; waited_ms += 10) {
        const int rc = sqlite3_exec(db_, "PRAGMA journal_mode = WAL", nullptr, nullptr, nullptr);
        if (rc == SQLITE_OK) {
            if (journal_mode() != "wal")
                spdlog::warn("database {}: WAL mode unavailable, using {}", path, journal_mode());
            break;
        }
        if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= kBusyTimeoutMs) fail("PRAGMA journal_mode = WAL", rc);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    exec("PRAGMA synchronous = FULL");
}

SqliteDb::~SqliteDb() {
    if (db_) sqlite3_close_v2(db_);
}

void SqliteDb::fail(const std::string& what, int rc) const {
    throw Error("database " + path_ + ": " + what + ": " + (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)));
}

void SqliteDb::exec(std::string_view sql) {
    char* err = nullptr;
    const std::string s(sql);
    if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        const std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw Error("database " + path_ + ": " + msg + " (in: " + s.substr(0, 80) + ")");
    }
}

int64_t SqliteDb::last_insert_id() const {
    return sqlite3_last_insert_rowid(db_);
}
int SqliteDb::changes() const {
    return sqlite3_changes(db_);
}

int SqliteDb::user_version() {
    Statement st(*this, "PRAGMA user_version");
    return st.step() ? static_cast<int>(st.int64(0)) : 0;
}

void SqliteDb::set_user_version(int version) {
    exec("PRAGMA user_version = " + std::to_string(version));
}

std::string SqliteDb::journal_mode() {
    Statement st(*this, "PRAGMA journal_mode");
    return st.step() ? st.text(0) : "";
}

Statement::Statement(SqliteDb& db, std::string_view sql) : db_(db), sql_(sql) {
    const int rc =
        sqlite3_prepare_v2(db.handle(), sql_.data(), static_cast<int>(sql_.size()), &stmt_, nullptr);
    if (rc != SQLITE_OK) db_.fail("cannot prepare '" + sql_ + "'", rc);
}

Statement::~Statement() {
    sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int index, int64_t value) {
    if (const int rc = sqlite3_bind_int64(stmt_, index, value); rc != SQLITE_OK)
        db_.fail("bind in '" + sql_ + "'", rc);
    return *this;
}

Statement& Statement::bind(int index, double value) {
    if (const int rc = sqlite3_bind_double(stmt_, index, value); rc != SQLITE_OK)
        db_.fail("bind in '" + sql_ + "'", rc);
    return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
    const int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    if (rc != SQLITE_OK) db_.fail("bind in '" + sql_ + "'", rc);
    return *this;
}

Statement& Statement::bind_null(int index) {
    if (const int rc = sqlite3_bind_null(stmt_, index); rc != SQLITE_OK)
        db_.fail("bind in '" + sql_ + "'", rc);
    return *this;
}

bool Statement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    db_.fail("'" + sql_ + "'", rc);
}

void Statement::run() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

int64_t Statement::int64(int column) const {
    return sqlite3_column_int64(stmt_, column);
}
double Statement::real(int column) const {
    return sqlite3_column_double(stmt_, column);
}
bool Statement::is_null(int column) const {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::string Statement::text(int column) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}

Transaction::Transaction(SqliteDb& db) : db_(db) {
    db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
    if (done_) return;
    // A write that failed with SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM or SQLITE_BUSY may have
    // rolled the whole transaction back already (the connection is then in autocommit mode again);
    // a ROLLBACK would only fail with "no transaction is active".
    if (sqlite3_get_autocommit(db_.handle()) != 0) {
        spdlog::debug("database {}: transaction already rolled back by SQLite", db_.path());
        return;
    }
    try {
        db_.exec("ROLLBACK");
    } catch (const std::exception& e) {
        spdlog::error("rollback failed: {}", e.what());
    }
}

void Transaction::commit() {
    db_.exec("COMMIT");
    done_ = true;
}

}  // namespace snapdoc::services

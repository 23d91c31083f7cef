// A thin RAII layer over the SQLite C API: a connection, prepared statements and transactions.
// Every failure throws snapdoc::Error with SQLite's message and the statement that failed, so the
// store above never checks return codes itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace snapdoc::services {

class SqliteDb;

class Statement {
public:
    Statement(SqliteDb& db, std::string_view sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Parameters are 1-based, as in SQLite.
    Statement& bind(int index, int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view text);
    Statement& bind_null(int index);

    // Advances to the next row; false when done.
    bool step();
    // Runs a statement that returns no rows.
    void run();
    void reset();

    int64_t int64(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    bool is_null(int column) const;

private:
    SqliteDb& db_;
    sqlite3_stmt* stmt_ = nullptr;
    std::string sql_;
};

class SqliteDb {
public:
    // Opens (creating if needed) the database file. Sets WAL mode, synchronous=FULL (a commit is on
    // disk before it returns, so a crash after commit loses nothing), foreign keys and a busy timeout.
    explicit SqliteDb(const std::string& path);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(std::string_view sql);
    int64_t last_insert_id() const;
    int changes() const;
    int user_version();
    void set_user_version(int version);
    std::string journal_mode();
    sqlite3* handle() { return db_; }
    const std::string& path() const { return path_; }
    [[noreturn]] void fail(const std::string& what, int rc) const;

private:
    sqlite3* db_ = nullptr;
    std::string path_;
};

// BEGIN IMMEDIATE on construction (takes the write lock up front, so two writers never deadlock
// half-way), ROLLBACK on destruction unless commit() was called.
class Transaction {
public:
    explicit Transaction(SqliteDb& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    SqliteDb& db_;
    bool done_ = false;
};

}  // namespace snapdoc::services

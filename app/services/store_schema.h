// The library database's schema, as a list of migrations. Version N is reached by running
// migrations 1..N in order, each in its own transaction together with the user_version bump, so a
// crash mid-migration leaves the database at the previous version, never in between.
#pragma once

namespace snapdoc::services {

class SqliteDb;

inline constexpr int kLatestSchemaVersion = 4;

// Brings `db` to `target` (default: the latest). Throws Error if the database is newer than this
// build knows (a downgrade would silently drop data) or a migration fails.
void migrate(SqliteDb& db, int target = kLatestSchemaVersion);

}  // namespace snapdoc::services

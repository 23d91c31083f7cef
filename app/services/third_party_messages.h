// Qt's and Poppler's own messages into the app's log instead of straight onto stderr. A damaged
// PDF makes Poppler print one line per bad token (280 "Illegal character <29> in hex string" lines
// for one real file) and Qt prints "OpenType support missing for ..." for every font without
// shaping tables for a script it meets: noise to a user, useful detail in a bug report. Each goes
// to the log at debug level, with one summary line at a level the user sees.
#pragma once

#include <QString>
#include <QtGlobal>

namespace snapdoc::services {

// Installs a Qt message handler that writes Qt's messages to spdlog ("qt: ..."): debug, info,
// warning, critical and fatal become debug, info, warn, error and critical (a fatal one still
// aborts, as Qt does after any handler). Known noise (`is_qt_font_noise`) goes at debug level; the
// first one also writes one info line saying so. Safe to call more than once.
QtMessageHandler route_qt_messages_to_log();  // returns the handler it replaced

// True for Qt's per-font, per-script shaping warnings ("OpenType support missing for ...").
bool is_qt_font_noise(const QString& message);

// Poppler's parser messages to spdlog at debug level ("poppler: ..."), counted per thread for
// `PopplerMessageTally`. Safe to call more than once and from any thread.
void route_poppler_messages_to_log();

// Counts the Poppler messages of one job on this thread (Poppler parses on the calling thread), so
// the job can write one summary line. Tallies nest: the innermost one counts.
class PopplerMessageTally {
public:
    PopplerMessageTally();
    ~PopplerMessageTally();
    PopplerMessageTally(const PopplerMessageTally&) = delete;
    PopplerMessageTally& operator=(const PopplerMessageTally&) = delete;

    int count() const { return count_; }
    const QString& first() const { return first_; }  // the first message, "" if none
    void add(const QString& message);

private:
    PopplerMessageTally* outer_;
    int count_ = 0;
    QString first_;
};

}  // namespace snapdoc::services

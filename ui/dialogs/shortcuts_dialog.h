// Help > Keyboard Shortcuts: every key the app answers, in one table (issue 37: LM Studio, Jan and
// GPT4All list theirs; snapdoc's were only discoverable by opening each menu). The menu rows are
// read from the window's own menu bar when the dialog opens, so a shortcut added to a menu is listed
// without touching this file; keys that belong to no menu action (Enter in the question box) are
// the short fixed list in shortcuts_dialog.cpp.
#pragma once

#include <QDialog>
#include <QString>
#include <vector>

class QMenuBar;

namespace snapdoc::ui {

struct ShortcutRow {
    QString where;  // "File", "Chat", "Question box"
    QString what;   // "Open Document", without the menu's "&" and "…"
    QString keys;   // the platform's text for the key sequence ("Ctrl+O")
};

// The rows for every action with a shortcut in `menus` (submenus included), in menu order, then
// the keys of no menu.
std::vector<ShortcutRow> shortcut_rows(const QMenuBar& menus);

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const QMenuBar& menus, QWidget* parent);
};

}  // namespace snapdoc::ui

#include "ui/dialogs/shortcuts_dialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

#include "ui/widgets/screen_fit.h"

namespace snapdoc::ui {

namespace {

// "&Open Document…" -> "Open Document": the mnemonic marker and the ellipsis are menu typography.
QString plain_title(QString text) {
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));  // "&&" (a literal "&") keeps one
    while (text.endsWith(QChar(0x2026)) || text.endsWith(QLatin1Char('.'))) text.chop(1);
    return text.trimmed();
}

void add_menu_rows(const QMenu& menu, const QString& where, std::vector<ShortcutRow>& rows) {
    for (const QAction* action : menu.actions()) {
        if (action->isSeparator()) continue;
        if (const QMenu* sub = action->menu()) {
            add_menu_rows(*sub, where + QStringLiteral(" › ") + plain_title(sub->title()), rows);
            continue;
        }
        for (const QKeySequence& keys : action->shortcuts())
            if (!keys.isEmpty())
                rows.push_back({where, plain_title(action->text()), keys.toString(QKeySequence::NativeText)});
    }
}

}  // namespace

std::vector<ShortcutRow> shortcut_rows(const QMenuBar& menus) {
    std::vector<ShortcutRow> rows;
    for (const QAction* top : menus.actions())
        if (const QMenu* menu = top->menu()) add_menu_rows(*menu, plain_title(menu->title()), rows);
    // Keys handled by widgets, not menu actions (QuestionEdit, the document view's find).
    const QString question = ShortcutsDialog::tr("Question box");
    rows.push_back({question, ShortcutsDialog::tr("Send the question"),
                    QKeySequence(Qt::Key_Return).toString(QKeySequence::NativeText)});
    rows.push_back({question, ShortcutsDialog::tr("New line in the question"),
                    QKeySequence(Qt::SHIFT | Qt::Key_Return).toString(QKeySequence::NativeText)});
    return rows;
}

ShortcutsDialog::ShortcutsDialog(const QMenuBar& menus, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Keyboard Shortcuts"));
    const std::vector<ShortcutRow> rows = shortcut_rows(menus);
    auto* table = new QTableWidget(static_cast<int>(rows.size()), 3, this);
    table->setObjectName("shortcutsTable");
    table->setHorizontalHeaderLabels({tr("Keys"), tr("Does"), tr("Where")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
        table->setItem(i, 0, new QTableWidgetItem(rows[i].keys));
        table->setItem(i, 1, new QTableWidgetItem(rows[i].what));
        table->setItem(i, 2, new QTableWidgetItem(rows[i].where));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(table);
    layout->addWidget(buttons);
    open_on_screen(*this, QSize(560, 520));  // the table scrolls on a smaller screen
}

}  // namespace snapdoc::ui

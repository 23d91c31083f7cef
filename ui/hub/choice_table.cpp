#include "ui/hub/choice_table.h"

#include <QHeaderView>
#include <QTableWidget>

namespace snapdoc::ui {

QTableWidget* make_choice_table(QWidget* parent, const char* object_name, const QStringList& headers) {
    auto* t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setObjectName(object_name);
    t->setHorizontalHeaderLabels(headers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->hide();
    return t;
}

}  // namespace snapdoc::ui

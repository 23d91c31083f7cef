// The read-only, one-row-selection table the Get models window lists files and models in.
#pragma once

#include <QStringList>

class QTableWidget;
class QWidget;

namespace snapdoc::ui {

QTableWidget* make_choice_table(QWidget* parent, const char* object_name, const QStringList& headers);

}  // namespace snapdoc::ui

// The models already in the models folder (hub::ModelStore): repository, file, size, with "Use"
// and "Delete" (asked first, through the DialogProvider seam).
#pragma once

#include <QWidget>
#include <filesystem>
#include <vector>

#include "app/hub/model_store.h"

class QLabel;
class QPushButton;
class QTableWidget;

namespace snapdoc::ui {

class DialogProvider;

class LocalModelsList : public QWidget {
    Q_OBJECT
public:
    LocalModelsList(std::filesystem::path models_dir, DialogProvider& dialogs, QWidget* parent = nullptr);

    void refresh();
    // The model the app has loaded: deleting it is asked with a warning that says so.
    void set_model_in_use(const std::filesystem::path& path) { in_use_ = path; }
    QTableWidget* table() const { return table_; }
    const std::vector<hub::LocalModel>& models() const { return models_; }

signals:
    void useModel(const QString& path);
    // The list was read again (a download finished, a model was deleted): catalogue marks follow it.
    void refreshed();

private:
    const hub::LocalModel* selected() const;

    hub::ModelStore store_;
    DialogProvider& dialogs_;
    std::vector<hub::LocalModel> models_;
    std::filesystem::path in_use_;
    QTableWidget* table_;
    QLabel* status_;
    QPushButton* use_;
    QPushButton* delete_;
};

}  // namespace snapdoc::ui

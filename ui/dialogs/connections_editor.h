// Settings > Connections: any number of named remote engines (base URL, API key, CA certificate or
// "trust this certificate", model), folded to one line until "Edit…". "Test / refresh" asks the endpoint off the GUI thread and shows
// the engine, its models and their context, or the error in words; its models fill the model list.
#pragma once

#include <QFutureWatcher>
#include <QGroupBox>
#include <vector>

#include "app/services/app_settings.h"
#include "ui/worker/remote_connection.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace snapdoc::ui {

class ConnectionsEditor : public QGroupBox {
    Q_OBJECT
public:
    explicit ConnectionsEditor(QWidget* parent = nullptr);

    void set_connections(const std::vector<services::ConnectionSettings>& list);
    std::vector<services::ConnectionSettings> connections() const;
    // Why the list cannot be kept ("" when it can): a connection without a name or URL, a name
    // used twice.
    QString problem() const;

    // Adds an entry (named "Connection N" when `name` is empty) and shows it for editing.
    void add_connection(const QString& name = {});
    void remove_current();
    // Runs the probe of the entry shown (off the GUI thread); probed() follows.
    void test_current();
    bool testing() const { return probing_row_ >= 0; }
    QString test_result() const;

    // The fields of the entry shown, for tests and the dialog.
    QLineEdit* name_edit() const { return name_; }
    QLineEdit* url_edit() const { return url_; }
    QLineEdit* key_edit() const { return key_; }
    QLineEdit* ca_cert_edit() const { return ca_cert_; }
    QCheckBox* insecure_check() const { return insecure_; }
    QComboBox* model_combo() const { return model_; }

signals:
    void probed(bool ok, const QString& summary);

private:
    void show_entry(int row);
    void update_summary();
    void store_entry();  // the fields into entries_[current_]
    void on_probed();

    std::vector<services::ConnectionSettings> entries_;
    int current_ = -1;
    bool filling_ = false;
    QLabel* summary_;       // "No connections yet." / their names, while the editor is folded
    QPushButton* unfold_;   // shows or folds the editor (folded: Settings fits a 1080-pixel screen)
    QWidget* body_;
    QListWidget* list_;
    QPushButton* add_;
    QPushButton* remove_;
    QLineEdit* name_;
    QLineEdit* url_;
    QLineEdit* key_;
    QLineEdit* ca_cert_;
    QPushButton* browse_;
    QCheckBox* insecure_;
    QComboBox* model_;
    QPushButton* test_;
    QLabel* result_;
    QFutureWatcher<ConnectionProbe> watcher_;
    int probing_row_ = -1;  // the entry being tested, -1 when none
};

}  // namespace snapdoc::ui

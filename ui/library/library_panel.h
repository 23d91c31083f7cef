// The left column: the loaded model (name and facts, open and Get models buttons), the first-run
// notice (the bundled model is a demo), and the document library.
#pragma once

#include <QWidget>

class QAction;

class QLabel;
class QListView;
class QPushButton;
class QTimer;

namespace snapdoc::ui {

class LibraryModel;

class LibraryPanel : public QWidget {
    Q_OBJECT
public:
    explicit LibraryPanel(LibraryModel* model, QWidget* parent = nullptr);

    QListView* list() const { return list_; }
    void set_model_text(const QString& title, const QString& details);
    QString model_title() const;
    void select_document(int64_t id);
    // The first-run notice: shown while no model, or only the bundled demo model, is loaded.
    void set_first_run_notice(bool shown);
    bool first_run_notice_shown() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

signals:
    void openModelRequested();
    void getModelsRequested();
    void openDocumentRequested();
    void documentActivated(qint64 id);
    void removeDocumentRequested(qint64 id);

private:
    void show_item_menu(const QPoint& at);

    LibraryModel* model_;
    QLabel* model_title_;
    QLabel* model_details_;
    QWidget* first_run_;
    QListView* list_;
    int64_t selected_ = -1;
    int64_t moving_to_ = -1;  // the row an arrow key moved to, kept current across a model reset
    int64_t menu_target_ = -1;  // the right-clicked row while its menu is open
    QAction* remove_ = nullptr;
    QTimer* key_timer_ = nullptr;
};

}  // namespace snapdoc::ui

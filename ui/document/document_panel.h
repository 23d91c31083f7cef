// The document column: title and facts (size, tokens against the model's context, pages), a
// progress row for reading and prefilling (percentage, ETA, stop) and the shaded document view.
#pragma once

#include <QWidget>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;

namespace snapdoc::ui {

class DocumentView;

class DocumentPanel : public QWidget {
    Q_OBJECT
public:
    explicit DocumentPanel(QWidget* parent = nullptr);

    DocumentView* view() const { return view_; }
    void show_document(const QString& title, const QString& text, const std::vector<int>& page_offsets);
    void clear_document();
    void set_facts(const QString& html);
    // value/maximum as in QProgressBar; maximum 0 shows a busy indicator.
    void show_progress(const QString& text, int value, int maximum);
    void hide_progress();
    QString facts_text() const;
    QString progress_text() const;
    bool progress_visible() const;

signals:
    void stopRequested();

private:
    void update_page();

    QLabel* title_;
    QLabel* facts_;
    QLabel* page_;
    QProgressBar* progress_;
    QPushButton* stop_;
    DocumentView* view_;
    std::vector<int> page_offsets_;
};

}  // namespace snapdoc::ui

// The document column: title and facts (size, tokens against the model's context, pages), a
// progress row for reading and prefilling (percentage, ETA, stop), the shading toggle (kept by how
// many heads / used by this answer / one head) and the shaded document view.
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "engine/kv/selection.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;

namespace snapdoc::ui {

class DocumentView;
enum class DocumentShading;

class DocumentPanel : public QWidget {
    Q_OBJECT
public:
    explicit DocumentPanel(QWidget* parent = nullptr);

    DocumentView* view() const { return view_; }
    // `format` ("txt", "md", "html", "pdf") chooses the view's layout (document_layout.h).
    void show_document(const QString& title, const QString& text, const std::vector<int>& page_offsets,
                       const QString& format = {});
    void clear_document();
    void set_facts(const QString& html);
    // value/maximum as in QProgressBar; maximum 0 shows a busy indicator.
    void show_progress(const QString& text, int value, int maximum);
    void hide_progress();
    QString facts_text() const;
    QString progress_text() const;
    bool progress_visible() const;

    // The selection the "one head" shading reads (the inspector's current one).
    void set_selection(std::shared_ptr<const Selection> selection);
    // Which (layer, cache head) the "one head" shading shows (the inspector's locked head).
    void set_shading_head(int layer, int head);
    void set_shading(DocumentShading mode);
    DocumentShading shading() const;
    // "page 3 · line 41" for prompt position `position` ("" when it is not document text), from the
    // token map and the page breaks the document was shown with (the heatmap's position axis).
    QString location_of(int position) const;

public slots:
    // Chat-side API (stable names, Qt slot style). Per prompt position — the index of the engine's
    // prompt and of TokenTextMap; the document comes first, so index i is document token i — how much
    // the current answer used it (AskResult::answer_attention): any non-negative scale, shaded
    // relative to the largest on a log scale. An empty vector clears it. The "used by this answer"
    // shading is offered while weights are set; it is not switched on by this call.
    void setAnswerWeights(std::shared_ptr<const std::vector<float>> weights);
    void setAnswerWeights(const std::vector<float>& weights);  // the same, copied
    void clearAnswerWeights() { setAnswerWeights(nullptr); }
    // A clickable citation: scrolls to UTF-16 offsets [charBegin, charEnd) of the document text
    // (as TokenTextMap's begin/end) and highlights them until the next call or another document.
    // Returns false when the range is not in the document.
    bool scrollToAndHighlight(int charBegin, int charEnd);

signals:
    void stopRequested();

private:
    void update_page();
    void update_shading_controls();

    QLabel* title_;
    QLabel* facts_;
    QLabel* page_;
    QProgressBar* progress_;
    QPushButton* stop_;
    QComboBox* shading_;
    QSpinBox* layer_spin_;
    QSpinBox* head_spin_;
    DocumentView* view_;
    std::vector<int> page_offsets_;
    std::vector<int> line_starts_;  // UTF-16 offset of each line's first character
    int n_layers_ = 0, n_heads_ = 0;
};

}  // namespace snapdoc::ui

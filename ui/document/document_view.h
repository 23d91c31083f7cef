// The document's text, read-only, shaded by one of three measures of how much each token mattered:
// how many attention heads kept it (log scale, so a passage one head of 256 kept is still visibly
// shaded), how much the current answer used it (AskResult::answer_attention, one weight per prompt
// position), or whether one chosen (layer, head) kept it. Only the visible lines are shaded, in
// paintEvent, so a 100K-token document costs nothing when scrolled. A long text is filled in slices
// from the event loop (the first screenful at once), so a 5 MB document never freezes the window
// while the text view lays it out. A citation's text range can be scrolled to and highlighted.
#pragma once

#include <QPlainTextEdit>
#include <QtGlobal>
#include <memory>
#include <vector>

#include "app/common/token_text_map.h"
#include "engine/kv/selection.h"
#include "ui/document/document_layout.h"

namespace snapdoc::ui {

class MarkdownStyler;

enum class DocumentShading {
    HeadCount,  // kept by how many (layer, cache head) strips
    AnswerUse,  // used by this answer (attention of the answer tokens, per position)
    OneHead,    // kept by one chosen (layer, cache head)
};

// Shading levels 0..DocumentView::kLevels (0 = unshaded), pure so they are tested directly.
// Head counts on a log scale: 1 strip of any number is level 1, all strips the top level.
int head_count_level(int count, int strips);
// Answer weights on a log scale over [max·1e-3, max]: the attention of an answer is heavy-tailed.
int answer_weight_level(float weight, float max_weight);

class DocumentView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit DocumentView(QWidget* parent = nullptr);

    // `layout`: how the text is shown (document_layout.h); the view's characters are the text's either way.
    void set_document(const QString& text, DocumentLayout layout = DocumentLayout::Prose);
    DocumentLayout layout() const { return layout_; }
    // Whether the whole text of the last set_document is in the view (long texts arrive in slices).
    bool fully_loaded() const { return loaded_ >= text_.size(); }
    void set_token_map(std::shared_ptr<const TokenTextMap> map);
    void set_head_counts(std::shared_ptr<const std::vector<uint16_t>> counts, int strips);
    // Per prompt position (TokenTextMap's index): the answer's weight; empty clears it.
    void set_answer_weights(std::shared_ptr<const std::vector<float>> weights);
    // The selection the one-head mode reads, and which (layer, cache head) it shows.
    void set_selection(std::shared_ptr<const Selection> selection);
    void set_shading_head(int layer, int head);
    void set_shading(DocumentShading mode);
    DocumentShading shading() const { return mode_; }
    bool has_answer_weights() const { return weights_ && !weights_->empty(); }
    int shading_layer() const { return head_layer_; }
    int shading_head() const { return head_head_; }
    void clear_shading();
    // Scrolls so that prompt position `position` is in the middle and briefly highlights its text.
    // Returns false when the position is not document text (template or question).
    bool scroll_to_position(int position);
    // Scrolls to UTF-16 offsets [begin, end) of the document text and highlights them until the next
    // call or the next document (a citation). Returns false for a range outside the text.
    bool highlight_range(int begin, int end);
    // Offset of the first character shown at the top of the viewport (the page indicator's).
    int first_visible_offset() const;
    void clear_highlight();
    // The highlighted range, {-1, -1} when none (tests).
    std::pair<int, int> highlighted_range() const { return highlight_; }
    // The marker colour of the highlight or flash drawn now (invalid when none; tests).
    QColor highlight_color() const;

    const TokenTextMap* token_map() const { return map_.get(); }
    // Text of prompt positions [first, last) ("" when not document text).
    QString text_of(int first, int last) const;
    // Shading level (0..kLevels) drawn for the character at `offset` in the current mode; -1 when
    // unshaded (tests).
    int shade_level_at(int offset) const;
    static constexpr int kLevels = 8;
    // The tint drawn for shading `level` (1..kLevels) in the current mode and palette (tests).
    QColor shade_color_for(int level) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void append_next_slice();
    void load_until(qsizetype chars);  // synchronously, for a jump past what is in the view
    void recompute_levels();
    void update_extra_selections();
    void apply_layout(DocumentLayout layout);

    QString text_;
    QString shown_;           // what the view holds: text_, or text_ with Markdown's soft breaks as spaces
    qsizetype loaded_ = 0;    // characters of text_ in the view so far
    quint64 generation_ = 0;  // bumped by set_document: a pending slice of an older text stops
    std::shared_ptr<const TokenTextMap> map_;
    std::shared_ptr<const std::vector<uint16_t>> counts_;
    int strips_ = 0;
    std::shared_ptr<const std::vector<float>> weights_;
    std::shared_ptr<const Selection> selection_;
    int head_layer_ = 0, head_head_ = 0;
    DocumentShading mode_ = DocumentShading::HeadCount;
    std::vector<uint8_t> levels_;  // per prompt position, for the current mode (empty: unshaded)
    std::pair<int, int> highlight_{-1, -1};
    std::pair<int, int> flash_{-1, -1};
    quint64 flash_serial_ = 0;
    DocumentLayout layout_ = DocumentLayout::Prose;
    MarkdownStyler* styler_ = nullptr;  // attached to the document while the layout is Markdown
};

}  // namespace snapdoc::ui

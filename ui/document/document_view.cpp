#include "ui/document/document_view.h"

#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextLayout>
#include <QTimer>
#include <algorithm>
#include <cmath>

#include "ui/document/fixed_pitch_font.h"
#include "ui/document/markdown_styler.h"
#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

int head_count_level(int count, int strips) {
    if (count <= 0 || strips <= 0) return 0;
    if (count >= strips || strips == 1) return DocumentView::kLevels;
    // log(1 + count) / log(1 + strips) spread over levels 1..kLevels: a single strip is level 1
    // (visible), half of 256 strips about level 7.
    const double t = std::log1p(count) / std::log1p(strips);
    return std::clamp(1 + static_cast<int>(std::lround((DocumentView::kLevels - 1) * t)), 1,
                      DocumentView::kLevels);
}

int answer_weight_level(float weight, float max_weight) {
    if (!(weight > 0) || !(max_weight > 0)) return 0;
    constexpr double kDecades = 3;
    const double t = (std::log10(static_cast<double>(weight) / max_weight) + kDecades) / kDecades;
    if (t < 0) return 0;
    return std::clamp(1 + static_cast<int>(std::lround((DocumentView::kLevels - 1) * t)), 1,
                      DocumentView::kLevels);
}

namespace {
// Characters per slice: about 10-20 ms of layout each on a desktop CPU.
constexpr qsizetype kSliceChars = 128 * 1024;

QColor shade_color(DocumentShading mode, int level, const QPalette& palette) {
    // The lightest level must still read as shaded on white: alpha 50 of 255 at level 1. On a dark
    // theme the hue is mirrored in lightness (for_palette), so the tint stays visible on the dark
    // base without washing out its light text.
    const int alpha = 36 + 14 * level;
    switch (mode) {
        case DocumentShading::AnswerUse:
            return for_palette(QColor(214, 120, 0, alpha), palette);
        case DocumentShading::OneHead:
            return for_palette(QColor(120, 60, 190, alpha), palette);
        case DocumentShading::HeadCount:
        default:
            return for_palette(QColor(24, 92, 200, alpha), palette);
    }
}
}  // namespace

DocumentView::DocumentView(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName("documentView");
    setReadOnly(true);
    setUndoRedoEnabled(false);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    setPlaceholderText(tr("Open or drop a document (.txt, .md, .html, .pdf)"));
}

void DocumentView::apply_layout(DocumentLayout layout) {
    layout_ = layout;
    if (!styler_) styler_ = new MarkdownStyler(this);
    // Detached first, so the new text is not styled as Markdown on its way in.
    styler_->setDocument(nullptr);
    const bool as_written = layout == DocumentLayout::AsWritten;
    // As written: a face that draws fixed pitch, whichever fonts are installed (fixed_pitch_font.h).
    setFont(as_written ? fixed_pitch_font() : QFont());
    setLineWrapMode(as_written ? QPlainTextEdit::NoWrap : QPlainTextEdit::WidgetWidth);
}

void DocumentView::set_document(const QString& text, DocumentLayout layout) {
    apply_layout(layout);
    text_ = text;
    // Same length as text_, so every offset is the document's; only soft breaks differ.
    shown_ = layout == DocumentLayout::Markdown ? markdown_view_text(text)
             : layout == DocumentLayout::Pdf    ? pdf_view_text(text)
                                                : text;
    map_.reset();
    counts_.reset();
    weights_.reset();
    selection_.reset();
    strips_ = 0;
    levels_.clear();
    highlight_ = flash_ = {-1, -1};
    setExtraSelections({});
    ++generation_;
    loaded_ = std::min(text_.size(), kSliceChars);
    setPlainText(shown_.left(loaded_));
    if (layout == DocumentLayout::Markdown) styler_->setDocument(document());
    if (!fully_loaded())
        QTimer::singleShot(0, this, [this, g = generation_] {
            if (g == generation_) append_next_slice();
        });
}

void DocumentView::append_next_slice() {
    if (fully_loaded()) return;
    const qsizetype n = std::min(text_.size() - loaded_, kSliceChars);
    QTextCursor end(document());
    end.movePosition(QTextCursor::End);
    end.insertText(shown_.mid(loaded_, n));  // plain text: '\n' starts a block, as setPlainText does
    loaded_ += n;
    if (!fully_loaded())
        QTimer::singleShot(0, this, [this, g = generation_] {
            if (g == generation_) append_next_slice();
        });
}

void DocumentView::load_until(qsizetype chars) {
    while (!fully_loaded() && loaded_ < chars) {
        const qsizetype n = std::min(text_.size() - loaded_, kSliceChars);
        QTextCursor end(document());
        end.movePosition(QTextCursor::End);
        end.insertText(shown_.mid(loaded_, n));
        loaded_ += n;
    }
}

void DocumentView::set_token_map(std::shared_ptr<const TokenTextMap> map) {
    map_ = std::move(map);
    viewport()->update();
}

void DocumentView::set_head_counts(std::shared_ptr<const std::vector<uint16_t>> counts, int strips) {
    counts_ = std::move(counts);
    strips_ = strips;
    recompute_levels();
}

void DocumentView::set_answer_weights(std::shared_ptr<const std::vector<float>> weights) {
    weights_ = std::move(weights);
    recompute_levels();
}

void DocumentView::set_selection(std::shared_ptr<const Selection> selection) {
    selection_ = std::move(selection);
    if (mode_ == DocumentShading::OneHead) recompute_levels();
}

void DocumentView::set_shading_head(int layer, int head) {
    head_layer_ = std::max(0, layer);
    head_head_ = std::max(0, head);
    if (mode_ == DocumentShading::OneHead) recompute_levels();
}

void DocumentView::set_shading(DocumentShading mode) {
    mode_ = mode;
    recompute_levels();
}

void DocumentView::clear_shading() {
    counts_.reset();
    weights_.reset();
    selection_.reset();
    strips_ = 0;
    recompute_levels();
}

void DocumentView::recompute_levels() {
    // One byte per prompt position for the current mode: paintEvent reads only the visible ones.
    levels_.clear();
    switch (mode_) {
        case DocumentShading::HeadCount:
            if (counts_ && strips_ > 0) {
                levels_.resize(counts_->size());
                for (std::size_t p = 0; p < counts_->size(); ++p)
                    levels_[p] = static_cast<uint8_t>(head_count_level((*counts_)[p], strips_));
            }
            break;
        case DocumentShading::AnswerUse:
            if (weights_ && !weights_->empty()) {
                float hi = 0;
                for (float w : *weights_)
                    if (std::isfinite(w)) hi = std::max(hi, w);
                levels_.resize(weights_->size());
                for (std::size_t p = 0; p < weights_->size(); ++p)
                    levels_[p] = static_cast<uint8_t>(answer_weight_level((*weights_)[p], hi));
            }
            break;
        case DocumentShading::OneHead:
            if (selection_ && head_layer_ < static_cast<int>(selection_->layers.size()) &&
                head_head_ < static_cast<int>(selection_->layers[head_layer_].size())) {
                const Selection& s = *selection_;
                levels_.assign(std::max(0, s.prompt_len), 0);
                for (int32_t p : s.layers[head_layer_][head_head_].kept)
                    if (p >= 0 && p < s.n_prefix()) levels_[p] = kLevels;
                for (int p = std::max(0, s.n_prefix()); p < s.prompt_len; ++p) levels_[p] = kLevels;
            }
            break;
    }
    viewport()->update();
}

QString DocumentView::text_of(int first, int last) const {
    if (!map_) return {};
    const auto [a, b] = map_->text_range(first, last);
    if (a < 0 || b <= a) return {};
    return text_.mid(a, b - a);
}

int DocumentView::shade_level_at(int offset) const {
    if (!map_ || levels_.empty()) return -1;
    const int p = map_->position_at(offset);
    if (p < 0 || p >= static_cast<int>(levels_.size()) || map_->begin[p] > offset) return -1;
    return levels_[p];
}

void DocumentView::update_extra_selections() {
    QList<QTextEdit::ExtraSelection> marks;
    const int in_view = static_cast<int>(document()->characterCount()) - 1;
    auto add = [&](std::pair<int, int> r, const QColor& color) {
        if (r.first < 0 || r.first >= in_view) return;
        QTextEdit::ExtraSelection mark;
        mark.cursor = QTextCursor(document());
        mark.cursor.setPosition(r.first);
        mark.cursor.setPosition(std::min(std::max(r.second, r.first + 1), in_view), QTextCursor::KeepAnchor);
        mark.format.setBackground(color);
        marks << mark;
    };
    // A citation's yellow marker under dark text on a light theme; on a dark theme a dark amber
    // under the light text (the light yellow left that text unreadable).
    add(highlight_, for_palette(QColor(255, 221, 87), palette()));
    add(flash_, for_palette(QColor(255, 196, 0), palette()));
    setExtraSelections(marks);
}

void DocumentView::changeEvent(QEvent* event) {
    QPlainTextEdit::changeEvent(event);
    // A theme switch (Settings > Appearance) repaints the shading from the new palette by itself;
    // the citation marker is a format in the document and has to be set again.
    if (event->type() == QEvent::PaletteChange) update_extra_selections();
}

QColor DocumentView::shade_color_for(int level) const {
    return shade_color(mode_, level, palette());
}

QColor DocumentView::highlight_color() const {
    return extraSelections().isEmpty() ? QColor() : extraSelections().front().format.background().color();
}

bool DocumentView::scroll_to_position(int position) {
    if (!map_ || position < map_->first_text || position > map_->last_text) return false;
    const auto [a, b] = map_->text_range(position, position + 1);
    if (a < 0) return false;
    load_until(b + 1);
    const int in_view = static_cast<int>(document()->characterCount()) - 1;
    if (a >= in_view) return false;
    QTextCursor c(document());
    c.setPosition(a);
    setTextCursor(c);
    centerCursor();
    // A short-lived outline of the token, so the eye finds it.
    flash_ = {a, b};
    update_extra_selections();
    QTimer::singleShot(1500, this, [this, serial = ++flash_serial_] {
        if (serial != flash_serial_) return;
        flash_ = {-1, -1};
        update_extra_selections();
    });
    return true;
}

bool DocumentView::highlight_range(int begin, int end) {
    if (begin < 0 || end <= begin || begin >= text_.size()) return false;
    end = std::min<int>(end, static_cast<int>(text_.size()));
    load_until(end + 1);
    const int in_view = static_cast<int>(document()->characterCount()) - 1;
    if (begin >= in_view) return false;
    highlight_ = {begin, end};
    // The end first, then the start: a passage taller than the view shows its beginning.
    QTextCursor c(document());
    c.setPosition(std::min(end, in_view));
    setTextCursor(c);
    ensureCursorVisible();
    c.setPosition(begin);
    setTextCursor(c);
    centerCursor();
    update_extra_selections();
    return true;
}

int DocumentView::first_visible_offset() const {
    // The first visible block, then the line of it at the viewport's top (a wrapped paragraph can
    // span pages); cursorForPosition alone read a stale layout after key and scroll-bar moves.
    const QTextBlock block = firstVisibleBlock();
    if (!block.isValid()) return 0;
    const QTextLayout* layout = block.layout();
    const double top = -blockBoundingGeometry(block).translated(contentOffset()).top();
    if (layout)
        for (int i = 0; i < layout->lineCount(); ++i) {
            const QTextLine line = layout->lineAt(i);
            if (line.y() + line.height() > top) return block.position() + line.textStart();
        }
    return block.position();
}

void DocumentView::clear_highlight() {
    highlight_ = {-1, -1};
    update_extra_selections();
}

void DocumentView::paintEvent(QPaintEvent* event) {
    if (map_ && !levels_.empty() && map_->first_text >= 0) {
        QPainter p(viewport());
        const QPointF offset = contentOffset();
        const int view_h = viewport()->height();
        const int n = std::min(static_cast<int>(levels_.size()), map_->last_text + 1);
        for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
            const QRectF br = blockBoundingGeometry(block).translated(offset);
            if (br.top() > view_h) break;
            if (!block.isVisible()) continue;
            const int b0 = block.position(), b1 = b0 + block.length();
            QTextLayout* layout = block.layout();
            for (int pos = std::max(map_->position_at(b0), map_->first_text); pos >= 0 && pos < n;) {
                if (map_->begin[pos] >= b1) break;
                // Merge neighbouring tokens of the same level into one run.
                const int level = levels_[pos];
                int end_pos = pos + 1;
                while (end_pos < n && map_->begin[end_pos] < b1 && levels_[end_pos] == level) ++end_pos;
                const int a = std::max(map_->begin[pos], b0) - b0,
                          b = std::min(map_->end[end_pos - 1], b1) - b0;
                pos = end_pos;
                if (level == 0 || b <= a) continue;
                const QColor color = shade_color(mode_, level, palette());
                for (int i = 0; i < layout->lineCount(); ++i) {
                    const QTextLine line = layout->lineAt(i);
                    const int ls = line.textStart(), le = ls + line.textLength();
                    const int s = std::max(a, ls), e = std::min(b, le);
                    if (s >= e) continue;
                    const qreal x1 = line.cursorToX(s), x2 = line.cursorToX(e);
                    p.fillRect(QRectF(br.left() + x1, br.top() + line.y(), x2 - x1, line.height()), color);
                }
            }
        }
    }
    QPlainTextEdit::paintEvent(event);
}

}  // namespace snapdoc::ui

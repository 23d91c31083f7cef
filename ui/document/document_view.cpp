#include "ui/document/document_view.h"

#include <QPainter>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextLayout>
#include <QTimer>
#include <algorithm>

namespace snapdoc::ui {

DocumentView::DocumentView(QWidget* parent) : QPlainTextEdit(parent) {
    setObjectName("documentView");
    setReadOnly(true);
    setUndoRedoEnabled(false);
    setLineWrapMode(QPlainTextEdit::WidgetWidth);
    setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    setPlaceholderText(tr("Open or drop a document (.txt, .md, .html, .pdf)"));
}

namespace {
// Characters per slice: about 10-20 ms of layout each on a desktop CPU.
constexpr qsizetype kSliceChars = 128 * 1024;
}  // namespace

void DocumentView::set_document(const QString& text) {
    text_ = text;
    map_.reset();
    counts_.reset();
    strips_ = 0;
    ++generation_;
    loaded_ = std::min(text_.size(), kSliceChars);
    setPlainText(text_.left(loaded_));
    if (!fully_loaded()) QTimer::singleShot(0, this, [this, g = generation_] {
        if (g == generation_) append_next_slice();
    });
}

void DocumentView::append_next_slice() {
    const qsizetype n = std::min(text_.size() - loaded_, kSliceChars);
    QTextCursor end(document());
    end.movePosition(QTextCursor::End);
    end.insertText(text_.mid(loaded_, n));  // plain text: '\n' starts a block, as setPlainText does
    loaded_ += n;
    if (!fully_loaded()) QTimer::singleShot(0, this, [this, g = generation_] {
        if (g == generation_) append_next_slice();
    });
}

void DocumentView::set_token_map(std::shared_ptr<const services::TokenTextMap> map) {
    map_ = std::move(map);
    viewport()->update();
}

void DocumentView::set_head_counts(std::shared_ptr<const std::vector<uint16_t>> counts, int strips) {
    counts_ = std::move(counts);
    strips_ = strips;
    viewport()->update();
}

void DocumentView::clear_shading() {
    counts_.reset();
    strips_ = 0;
    viewport()->update();
}

QString DocumentView::text_of(int first, int last) const {
    if (!map_) return {};
    const auto [a, b] = map_->text_range(first, last);
    if (a < 0 || b <= a) return {};
    return text_.mid(a, b - a);
}

int DocumentView::shade_level_at(int offset) const {
    if (!map_ || !counts_ || strips_ <= 0) return -1;
    const int p = map_->position_at(offset);
    if (p < 0 || p >= static_cast<int>(counts_->size()) || map_->begin[p] > offset) return -1;
    return static_cast<int>(std::lround(kLevels * static_cast<double>((*counts_)[p]) / strips_));
}

bool DocumentView::scroll_to_position(int position) {
    if (!map_ || position < map_->first_text || position > map_->last_text) return false;
    const auto [a, b] = map_->text_range(position, position + 1);
    const int in_view = static_cast<int>(document()->characterCount()) - 1;
    if (a < 0 || a >= in_view) return false;  // (a long text may still be filling in)
    QTextCursor c(document());
    c.setPosition(a);
    setTextCursor(c);
    centerCursor();
    // A short-lived outline of the token, so the eye finds it.
    QTextEdit::ExtraSelection mark;
    mark.cursor = QTextCursor(document());
    mark.cursor.setPosition(a);
    mark.cursor.setPosition(std::min(std::max(b, a + 1), in_view), QTextCursor::KeepAnchor);
    mark.format.setBackground(QColor(255, 196, 0));
    setExtraSelections({mark});
    QTimer::singleShot(1500, this, [this] { setExtraSelections({}); });
    return true;
}

void DocumentView::paintEvent(QPaintEvent* event) {
    if (map_ && counts_ && strips_ > 0 && map_->first_text >= 0) {
        QPainter p(viewport());
        const QPointF offset = contentOffset();
        const int view_h = viewport()->height();
        const int n = std::min(static_cast<int>(counts_->size()), map_->last_text + 1);
        for (QTextBlock block = firstVisibleBlock(); block.isValid(); block = block.next()) {
            const QRectF br = blockBoundingGeometry(block).translated(offset);
            if (br.top() > view_h) break;
            if (!block.isVisible()) continue;
            const int b0 = block.position(), b1 = b0 + block.length();
            QTextLayout* layout = block.layout();
            for (int pos = std::max(map_->position_at(b0), map_->first_text); pos >= 0 && pos < n;) {
                if (map_->begin[pos] >= b1) break;
                // Merge neighbouring tokens of the same level into one run.
                const int level =
                    static_cast<int>(std::lround(kLevels * static_cast<double>((*counts_)[pos]) / strips_));
                int end_pos = pos + 1;
                while (end_pos < n && map_->begin[end_pos] < b1 &&
                       std::lround(kLevels * static_cast<double>((*counts_)[end_pos]) / strips_) == level)
                    ++end_pos;
                const int a = std::max(map_->begin[pos], b0) - b0,
                          b = std::min(map_->end[end_pos - 1], b1) - b0;
                pos = end_pos;
                if (level == 0 || b <= a) continue;
                const QColor color(24, 92, 200, 14 * level);
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

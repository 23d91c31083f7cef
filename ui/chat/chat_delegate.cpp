#include "ui/chat/chat_delegate.h"

#include <QAbstractItemView>
#include <QAbstractTextDocumentLayout>
#include <QPainter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <cmath>
#include <utility>
#include <vector>

#include "ui/document/fixed_pitch_font.h"
#include "ui/models/chat_model.h"
#include "ui/widgets/theme_colors.h"

namespace snapdoc::ui {

namespace {

constexpr int kMargin = 6;   // around the card
constexpr int kPadding = 8;  // inside the card
constexpr int kGap = 4;      // between the parts of a card

bool is_user(const QModelIndex& index) {
    return index.data(ChatModel::RoleRole).toString() == QLatin1String("user");
}

int content_width(const QStyleOptionViewItem& option) {
    int w = option.rect.width();
    if (const auto* view = qobject_cast<const QAbstractItemView*>(option.widget))
        w = view->viewport()->width();
    return std::max(80, w - 2 * kMargin - 2 * kPadding);
}

QFont small_font(const QFont& f) {
    QFont s = f;
    s.setPointSizeF(f.pointSizeF() * 0.85);
    return s;
}

// Code blocks get a light background so they read as code (Qt's Markdown reader sets only the
// fixed-pitch font); on a dark theme a dark one, under its light text.
void shade_code_blocks(QTextDocument& doc, const QPalette& palette) {
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
        const bool code = b.blockFormat().hasProperty(QTextFormat::BlockCodeFence) ||
                          b.blockFormat().hasProperty(QTextFormat::BlockCodeLanguage) ||
                          b.charFormat().fontFixedPitch();
        if (!code) continue;
        QTextCursor c(b);
        QTextBlockFormat f;
        f.setBackground(for_palette(QColor(242, 243, 246), palette));
        c.mergeBlockFormat(f);
    }
}

// Qt's Markdown reader marks code spans and blocks fixed-pitch and names the desktop's fixed font,
// whose face depends on the fonts installed; give them the face the document view uses for code,
// chosen on what it draws (ui/document/fixed_pitch_font.h).
void pin_code_font(QTextDocument& doc) {
    std::vector<std::pair<int, int>> ranges;  // collected first: merging re-cuts the fragments
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
        for (auto it = b.begin(); !it.atEnd(); ++it)
            if (const QTextFragment f = it.fragment(); f.isValid() && f.charFormat().fontFixedPitch())
                ranges.emplace_back(f.position(), f.position() + f.length());
    QTextCharFormat code;
    code.setFontFamilies(fixed_pitch_font().families());
    for (const auto& [from, to] : ranges) {
        QTextCursor c(&doc);
        c.setPosition(from);
        c.setPosition(to, QTextCursor::KeepAnchor);
        c.mergeCharFormat(code);
    }
}

}  // namespace

QColor ChatDelegate::citation_color(bool weak, const QPalette& palette) {
    return for_palette(weak ? QColor(130, 130, 138) : QColor(30, 90, 170), palette);
}

std::unique_ptr<QTextDocument> ChatDelegate::body_document(const QModelIndex& index, const QFont& font,
                                                           int width, const QPalette& palette) {
    auto doc = std::make_unique<QTextDocument>();
    doc->setDefaultFont(font);
    doc->setDocumentMargin(0);
    QString text = index.data(Qt::DisplayRole).toString();
    const bool streaming = index.data(ChatModel::StreamingRole).toBool();
    const bool markdown = !is_user(index) && !index.data(ChatModel::FailedRole).toBool();
    if (text.isEmpty() && !streaming) text = QStringLiteral("…");
    if (markdown) {
        doc->setMarkdown(text, QTextDocument::MarkdownDialectGitHub);
        shade_code_blocks(*doc, palette);
        pin_code_font(*doc);
        if (streaming) {
            QTextCursor c(doc.get());
            c.movePosition(QTextCursor::End);
            c.insertText(QStringLiteral("▍"));
        }
    } else {
        doc->setPlainText(streaming ? text + QStringLiteral("▍") : text);
    }
    doc->setTextWidth(width);
    return doc;
}

ChatDelegate::Layout ChatDelegate::layout(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    Layout l;
    const int w = content_width(option);
    const QFontMetrics fm(option.font), sm(small_font(option.font));
    const QPoint origin = option.rect.topLeft();
    const int left = origin.x() + kMargin + kPadding;
    int y = origin.y() + kMargin + kPadding;
    l.header = QRect(left, y, w, fm.height());
    y += fm.height() + kGap;
    const auto doc = body_document(index, option.font, w, option.palette);
    const int body_h = static_cast<int>(std::ceil(doc->size().height()));
    l.body = QRect(left, y, w, body_h);
    y += body_h;
    const QStringList citations = index.data(ChatModel::CitationsRole).toStringList();
    if (!citations.isEmpty()) y += kGap;
    for (int k = 0; k < citations.size(); ++k) {
        l.citations.push_back(QRect(left, y, w, sm.height()));
        y += sm.height() + 1;
    }
    const QString meta = index.data(ChatModel::MetaRole).toString();
    if (!meta.isEmpty()) {
        y += kGap;
        const int h = sm.boundingRect(QRect(0, 0, w, 100000), Qt::TextWordWrap, meta).height();
        l.meta = QRect(left, y, w, h);
        y += h;
    }
    y += kPadding;
    l.card = QRect(origin.x() + kMargin, origin.y() + kMargin, w + 2 * kPadding, y - origin.y() - kMargin);
    l.height = y + kMargin - origin.y();
    return l;
}

QSize ChatDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const Layout l = layout(option, index);
    return {l.card.width() + 2 * kMargin, l.height};
}

int ChatDelegate::citation_at(const QStyleOptionViewItem& option, const QModelIndex& index,
                              const QPoint& pos) const {
    const Layout l = layout(option, index);
    for (std::size_t k = 0; k < l.citations.size(); ++k)
        if (l.citations[k].contains(pos)) return static_cast<int>(k);
    return -1;
}

void ChatDelegate::paint(QPainter* p, const QStyleOptionViewItem& option, const QModelIndex& index) const {
    const bool user = is_user(index);
    const bool failed = index.data(ChatModel::FailedRole).toBool();
    const Layout l = layout(option, index);
    p->save();
    p->setClipRect(option.rect, Qt::IntersectClip);
    p->setRenderHint(QPainter::Antialiasing, true);
    // Light-theme colours, mirrored for a dark palette (a pale card under light text was unreadable).
    const QPalette& pal = option.palette;
    QColor fill = user ? for_palette(QColor(236, 241, 250), pal) : pal.color(QPalette::Base);
    if (failed) fill = for_palette(QColor(253, 236, 236), pal);
    p->setPen(QPen(option.state & QStyle::State_Selected ? pal.color(QPalette::Highlight)
                                                         : for_palette(QColor(210, 214, 222), pal)));
    p->setBrush(fill);
    p->drawRoundedRect(l.card, 6, 6);

    QFont bold = option.font;
    bold.setBold(true);
    p->setFont(bold);
    p->setPen(for_palette(user ? QColor(40, 70, 140) : QColor(30, 110, 60), pal));
    p->drawText(l.header, Qt::AlignLeft | Qt::AlignVCenter, index.data(ChatModel::HeaderRole).toString());

    const auto doc = body_document(index, option.font, l.body.width(), option.palette);
    p->translate(l.body.topLeft());
    QAbstractTextDocumentLayout::PaintContext ctx;
    ctx.palette.setColor(QPalette::Text, failed ? for_palette(QColor(160, 30, 30), pal) : pal.color(QPalette::Text));
    ctx.clip = QRectF(0, 0, l.body.width(), l.body.height());
    doc->documentLayout()->draw(p, ctx);
    p->translate(-l.body.topLeft());

    const QFont small = small_font(option.font);
    const QFontMetrics sm(small);
    p->setFont(small);
    const QStringList citations = index.data(ChatModel::CitationsRole).toStringList();
    const QVariantList weak = index.data(ChatModel::CitationsWeakRole).toList();
    for (int k = 0; k < citations.size() && k < static_cast<int>(l.citations.size()); ++k) {
        // A weak citation (nothing stood out) is grey and italic: it is not evidence like the others.
        const bool is_weak = k < weak.size() && weak[k].toBool();
        QFont f = small;
        f.setItalic(is_weak);
        p->setFont(f);
        p->setPen(citation_color(is_weak, pal));
        const QString text =
            QFontMetrics(f).elidedText(QStringLiteral("[%1] ").arg(k + 1) + citations[k], Qt::ElideRight,
                                       l.citations[static_cast<std::size_t>(k)].width());
        p->drawText(l.citations[static_cast<std::size_t>(k)], Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    p->setFont(small);
    const QString meta = index.data(ChatModel::MetaRole).toString();
    if (!meta.isEmpty()) {
        p->setPen(option.palette.color(QPalette::PlaceholderText));
        p->drawText(l.meta, Qt::AlignLeft | Qt::TextWordWrap, meta);
    }
    p->restore();
}

}  // namespace snapdoc::ui

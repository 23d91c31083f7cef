// Markdown shown rendered in the document view without changing one character of it (see
// document_layout.h for why): a QSyntaxHighlighter that sets ATX and setext headings large and
// bold, **strong**, *emphasis*, `code` and fenced code blocks, block quotes, list markers, tables
// (fixed pitch, so the columns line up), [links](url) and [links][label] (text underlined, the
// address or label small and grey) and "[label]: url" definition lines (small and grey). The markup characters themselves — "#", "*", "_", "`", ">", fences, brackets — are
// shrunk to a sliver and made transparent.
#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace snapdoc::ui {

class MarkdownStyler : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit MarkdownStyler(QObject* parent = nullptr);

    // The format markup characters get (tests compare with it).
    static bool is_hidden_markup(const QTextCharFormat& format);

protected:
    void highlightBlock(const QString& text) override;

private:
    void style_inline(const QString& text, int from);
    void hide(int start, int count);
    void merge(int start, int count, const QTextCharFormat& add);
    qreal base_point_size() const;
};

}  // namespace snapdoc::ui

// The document's text, read-only, shaded by how many attention heads kept each part of it: the
// more (layer, head) strips keep a token, the darker its background. Only the visible lines are
// shaded, in paintEvent, so a 100K-token document costs nothing when scrolled. A long text is filled
// in slices from the event loop (the first screenful at once), so a 5 MB document never freezes
// the window while the text view lays it out.
#pragma once

#include <QPlainTextEdit>
#include <QtGlobal>
#include <memory>
#include <vector>

#include "app/services/token_text_map.h"

namespace snapdoc::ui {

class DocumentView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit DocumentView(QWidget* parent = nullptr);

    void set_document(const QString& text);
    // Whether the whole text of the last set_document is in the view (long texts arrive in slices).
    bool fully_loaded() const { return loaded_ >= text_.size(); }
    void set_token_map(std::shared_ptr<const services::TokenTextMap> map);
    void set_head_counts(std::shared_ptr<const std::vector<uint16_t>> counts, int strips);
    void clear_shading();
    // Scrolls so that prompt position `position` is in the middle and briefly highlights its text.
    // Returns false when the position is not document text (template or question).
    bool scroll_to_position(int position);

    const services::TokenTextMap* token_map() const { return map_.get(); }
    // Text of prompt positions [first, last) ("" when not document text).
    QString text_of(int first, int last) const;
    // Shading level (0..kLevels) drawn for the character at `offset`; -1 when unshaded (tests).
    int shade_level_at(int offset) const;
    static constexpr int kLevels = 8;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    void append_next_slice();

    QString text_;
    qsizetype loaded_ = 0;  // characters of text_ in the view so far
    quint64 generation_ = 0;  // bumped by set_document: a pending slice of an older text stops
    std::shared_ptr<const services::TokenTextMap> map_;
    std::shared_ptr<const std::vector<uint16_t>> counts_;
    int strips_ = 0;
};

}  // namespace snapdoc::ui

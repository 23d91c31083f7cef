// The compression inspector: SnapKV controls, the KV memory readout (full vs compressed), question
// stability, the retention grid and the locked head's detail. It shows snapshots it is given and
// reports control changes; it never talks to the engine itself.
#pragma once

#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "ui/inspector/heatmap_job.h"
#include "ui/inspector/selection_analysis.h"
#include "ui/worker/worker_types.h"

class QLabel;
class QScrollArea;
class QTimer;

namespace snapdoc::ui {

class CompressionControls;
class HeadDetailView;
class RetentionGrid;

class InspectorPanel : public QWidget {
    Q_OBJECT
public:
    explicit InspectorPanel(QWidget* parent = nullptr);

    CompressionControls* controls() const { return controls_; }
    RetentionGrid* grid() const { return grid_; }
    HeadDetailView* detail() const { return detail_; }

    void set_shape(const CacheShape& shape, int context_length);
    void set_document_tokens(int tokens);
    void set_text_lookup(std::function<QString(int first, int last)> lookup);
    // A new selection (after an answer or a reselect): re-render and update the readouts.
    void set_snapshot(const SelectionSnapshot& snapshot);
    // Forget everything about the previous document (stability, locked head, images).
    void reset();
    // Locks a head as a click on its strip does (opens its detail view).
    void lock_head(int layer, int head);

    const SelectionSnapshot& snapshot() const { return snapshot_; }
    uint64_t rendered_serial() const { return rendered_; }  // increments on each shown heatmap
    QString memory_text() const;
    QString stability_text() const;

signals:
    void configChanged(const snapdoc::SnapKvConfig& config);
    void headLocked(int layer, int head, int position);
    void positionClicked(int position);
    // Per prompt position, how many strips keep it (for the document view's shading).
    void headCountsReady(std::shared_ptr<const std::vector<uint16_t>> counts, int strips);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void render();
    void on_rendered(const HeatmapResult& result);
    void update_readouts();

    CompressionControls* controls_;
    QLabel* memory_;
    QLabel* stability_;
    QLabel* legend_;
    RetentionGrid* grid_;
    QScrollArea* grid_scroll_;
    HeadDetailView* detail_;
    HeatmapJob job_;
    QTimer* resize_timer_;

    SelectionSnapshot snapshot_;
    CacheShape shape_;
    int document_tokens_ = 0;
    uint64_t rendered_ = 0;
    // Question stability: the latest selection of the previous question and of the current one.
    std::shared_ptr<const Selection> previous_question_, current_question_;
    uint64_t current_serial_ = 0;
    double overlap_ = -1;
};

}  // namespace snapdoc::ui

// Renders the retention heatmap (the zoomed view, or the difference with another question's kept
// sets), the minimap and the per-position head counts for a snapshot on Qt's thread pool, never on
// the GUI thread. One render runs at a time and only the newest waiting request is kept: a request
// replaced by a newer one (the slider moved again, the view was dragged further) never runs.
#pragma once

#include <QFutureWatcher>
#include <QImage>
#include <QObject>
#include <cstdint>
#include <memory>
#include <vector>

#include "ui/inspector/heatmap_render.h"
#include "ui/worker/worker_types.h"

namespace snapdoc::ui {

// An earlier question to compare with: its own latest selection, the window scores it came from
// (to re-select it at the current settings), or that re-selection when it was already made.
struct HeatmapBaseline {
    uint64_t serial = 0;  // 0: none
    std::shared_ptr<const Selection> own;
    std::shared_ptr<const WindowScores> scores;
    std::shared_ptr<const Selection> at_current;
};

// `baseline` at `config`: its re-selection from its scores (exact; no forward pass), or its own
// selection when that cannot be made (no scores, another window size); *own_settings says which.
std::shared_ptr<const Selection> baseline_at(const HeatmapBaseline& baseline, const SnapKvConfig& config,
                                             bool* own_settings);

struct HeatmapRequest {
    SelectionSnapshot snapshot;
    HeatmapLayout layout;
    int minimap_width = 0;  // 0: no minimap
    int minimap_height = 12;
    HeatmapBaseline stability;  // the previous question: question stability at the current settings
    HeatmapBaseline compare;    // set: draw kept by it only / by the snapshot only / both
};

struct HeatmapResult {
    uint64_t serial = 0;
    QImage image;
    HeatmapGeometry geometry;
    bool diff = false;  // the image is a difference view
    QImage minimap;
    // Strips keeping each prompt position (document shading, minimap), and the strip count.
    std::shared_ptr<const std::vector<uint16_t>> head_counts;
    int strips = 0;
    std::shared_ptr<const Selection> selection;  // what was rendered
    double render_ms = 0;  // the heatmap image alone (the measure docs/RESULTS.md quotes)
    // Question stability: of the document positions kept now, the fraction the previous question
    // keeps at the same settings (-1: no previous question or not comparable).
    double stability = -1;
    bool stability_own_settings = false;  // the previous question could only be taken as it was
    bool diff_own_settings = false;
    // Re-selections made for this render, by question serial (the panel keeps them for the next).
    std::vector<std::pair<uint64_t, std::shared_ptr<const Selection>>> resolved;
};

// The whole job, synchronously (the pool runs this; tests and the measurement call it directly).
HeatmapResult render_heatmap(const HeatmapRequest& request);

class HeatmapJob : public QObject {
    Q_OBJECT
public:
    explicit HeatmapJob(QObject* parent = nullptr);
    ~HeatmapJob() override;

    void request(const HeatmapRequest& request);
    // Convenience: the whole prompt, no diff, no minimap.
    void request(const SelectionSnapshot& snapshot, const HeatmapLayout& layout);
    bool busy() const { return watcher_.isRunning(); }

signals:
    void finished(const snapdoc::ui::HeatmapResult& result);

private:
    void on_done();

    QFutureWatcher<HeatmapResult> watcher_;
    uint64_t next_serial_ = 0;
    bool pending_ = false;
    HeatmapRequest pending_request_;
};

}  // namespace snapdoc::ui

Q_DECLARE_METATYPE(snapdoc::ui::HeatmapResult)

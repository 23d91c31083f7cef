// Streamed answer text reaches the GUI at most once per interval, starts at once, and loses nothing.
#include <QtTest>

#include "ui/worker/text_coalescer.h"

using snapdoc::ui::TextCoalescer;
using namespace std::chrono_literals;

class TestTextCoalescer : public QObject {
    Q_OBJECT
private slots:
    void first_piece_goes_out_at_once_then_batches() {
        TextCoalescer c(40ms);
        const auto t0 = TextCoalescer::Clock::time_point{} + 1s;
        QCOMPARE(c.push("The", t0).value_or("<none>"), std::string("The"));
        QVERIFY(!c.push(" access", t0 + 5ms));
        QVERIFY(!c.push(" code", t0 + 39ms));
        QCOMPARE(c.push(" is", t0 + 40ms).value_or("<none>"), std::string(" access code is"));
        QVERIFY(!c.push(" 7312", t0 + 50ms));
        QCOMPARE(c.flush(), std::string(" 7312"));
        QCOMPARE(c.flush(), std::string());
        // After a flush the next answer starts at once again.
        QCOMPARE(c.push("Next", t0 + 51ms).value_or("<none>"), std::string("Next"));
    }

    void nothing_is_lost_over_a_long_stream() {
        TextCoalescer c(40ms);
        auto t = TextCoalescer::Clock::time_point{} + 1s;
        std::string shown, expected;
        int updates = 0;
        for (int i = 0; i < 1000; ++i) {  // 1000 tokens at 1 ms each: about 25 updates, not 1000
            const std::string piece = " w" + std::to_string(i);
            expected += piece;
            if (auto out = c.push(piece, t)) {
                shown += *out;
                ++updates;
            }
            t += 1ms;
        }
        shown += c.flush();
        QCOMPARE(shown, expected);
        QVERIFY2(updates >= 20 && updates <= 30, qPrintable(QString::number(updates)));
    }

    void empty_pieces_send_nothing() {
        TextCoalescer c;
        QVERIFY(!c.push(""));
        QCOMPARE(c.flush(), std::string());
    }
};

QTEST_MAIN(TestTextCoalescer)
#include "test_text_coalescer.moc"

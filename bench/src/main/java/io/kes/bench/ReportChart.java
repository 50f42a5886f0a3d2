package io.kes.bench;

import io.kes.bench.Report.Row;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The report's bar chart (latest.png): drawing only; {@link Report} computes the rows. */
final class ReportChart {

    private ReportChart() {}

    /** Two panels of bars: median docs/s and ES CPU s per million docs, per mode. */
    static void draw(List<Row> rows, Path png) throws IOException {
        int w = 1200;
        int h = 760;
        Canvas canvas = new Canvas(w, h, "kes bench: medians per mode", 18);
        Graphics2D g = canvas.g;
        panel(g, rows, Row::docsPerSecond, "end-to-end docs/s (higher is better)", "%,.0f", 20, 50, w - 40, 320);
        panel(
                g,
                rows,
                Row::cpuPerMillion,
                "Elasticsearch CPU seconds per million docs (lower is better)",
                "%.1f",
                20,
                410,
                w - 40,
                320);
        canvas.writePng(png);
    }

    private static void panel(
            Graphics2D g,
            List<Row> rows,
            ToDoubleFunction<Row> f,
            String title,
            String fmt,
            int x,
            int y,
            int w,
            int h) {
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
        g.setColor(Color.DARK_GRAY);
        g.drawString(title, x, y + 14);
        int top = y + 30;
        int bottom = y + h - 44; // room for two lines of labels
        double max =
                rows.stream().mapToDouble(f).filter(d -> !Double.isNaN(d)).max().orElse(1) * 1.15;
        g.setColor(new Color(230, 230, 230));
        g.setStroke(new BasicStroke(1));
        for (int i = 1; i <= 4; i++) {
            int gy = bottom - (int) ((bottom - top) * i / 4.0);
            g.drawLine(x, gy, x + w, gy);
        }
        g.setColor(Color.GRAY);
        g.drawLine(x, bottom, x + w, bottom);
        int n = Math.max(rows.size(), 1);
        int slot = w / n;
        int barW = (int) (slot * 0.6);
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            double v = f.applyAsDouble(r);
            int bh = Double.isNaN(v) ? 0 : (int) ((bottom - top) * v / max);
            int bx = x + i * slot + (slot - barW) / 2;
            g.setColor(colour(r.mode()));
            g.fillRect(bx, bottom - bh, barW, bh);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            String label = Double.isNaN(v) ? "-" : String.format(fmt, v);
            g.drawString(label, bx + (barW - g.getFontMetrics().stringWidth(label)) / 2, bottom - bh - 4);
            // every other label one line lower: with 15+ modes the names would overlap
            g.drawString(
                    r.mode(),
                    x + i * slot + (slot - g.getFontMetrics().stringWidth(r.mode())) / 2,
                    bottom + 16 + (i % 2) * 14);
        }
    }

    private static Color colour(String mode) {
        return switch (mode) {
            case "kes" -> new Color(0x1f77b4);
            case "kes-30s" -> new Color(0x17becf);
            case "kes-mixed" -> new Color(0xff7f0e);
            case "kes-request" -> new Color(0x9467bd);
            case "ceiling" -> new Color(0x7f7f7f);
            default ->
                mode.contains("official")
                        ? new Color(0x8c564b)
                        : mode.contains("mixed")
                                ? new Color(0xd62728)
                                : mode.startsWith("kes-long")
                                        ? new Color(0x1f77b4)
                                        : mode.startsWith("ceiling") ? new Color(0x7f7f7f) : new Color(0x2ca02c);
        };
    }
}

package io.kes.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The scale model's chart (scale-model.png): drawing only; {@link ScaleModel} predicts the points. */
final class ScaleModelChart {

    private ScaleModelChart() {}

    /** Ratio against data nodes (log scale), with and without pauses, for bulks over every shard and over 6. */
    static void draw(List<double[]> all, List<double[]> six, Path png) throws IOException {
        int w = 1000;
        int h = 520;
        Canvas canvas = new Canvas(w, h, "Scale model: predicted single-shard / mixed throughput", 16);
        Graphics2D g = canvas.g;
        int left = 70;
        int right = w - 290;
        int top = 50;
        int bottom = h - 60;
        double max = 1;
        for (List<double[]> series : List.of(all, six)) {
            for (double[] p : series) {
                max = Math.max(max, Math.max(p[1], p[2]));
            }
        }
        max = Math.ceil(max * 1.1 * 2) / 2;
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (double y = 1; y <= max + 1e-9; y += 0.5) {
            int py = bottom - (int) ((bottom - top) * (y - 1) / (max - 1 + 1e-9));
            g.setColor(new Color(230, 230, 230));
            g.drawLine(left, py, right, py);
            g.setColor(Color.DARK_GRAY);
            g.drawString(String.format(Locale.ROOT, "%.1fx", y), 20, py + 4);
        }
        double lmin = Math.log10(3);
        double lmax = Math.log10(100);
        for (int n : ScaleModel.NODES) {
            int px = left + (int) ((right - left) * (Math.log10(n) - lmin) / (lmax - lmin));
            g.setColor(Color.DARK_GRAY);
            g.drawString(n + " nodes", px - 20, bottom + 18);
        }
        g.drawString("data nodes (log scale); y: single-shard docs/s / mixed docs/s", left, bottom + 40);
        Object[][] series = {
            {all, 2, new Color(0xd62728), "pauses, bulk over every shard"},
            {all, 1, new Color(0x1f77b4), "no pauses, bulk over every shard"},
            {six, 2, new Color(0xff7f0e), "pauses, 6-shard index"},
            {six, 1, new Color(0x2ca02c), "no pauses, 6-shard index"}
        };
        int legendY = top + 10;
        for (Object[] s : series) {
            @SuppressWarnings("unchecked")
            List<double[]> points = (List<double[]>) s[0];
            int col = (Integer) s[1];
            g.setColor((Color) s[2]);
            g.setStroke(new BasicStroke(2.5f));
            int px0 = -1;
            int py0 = -1;
            for (double[] p : points) {
                int px = left + (int) ((right - left) * (Math.log10(p[0]) - lmin) / (lmax - lmin));
                int py = bottom - (int) ((bottom - top) * (p[col] - 1) / (max - 1 + 1e-9));
                g.fillOval(px - 4, py - 4, 8, 8);
                if (px0 >= 0) {
                    g.drawLine(px0, py0, px, py);
                }
                px0 = px;
                py0 = py;
            }
            g.fillRect(right + 15, legendY - 8, 14, 8);
            g.setColor(Color.BLACK);
            g.drawString((String) s[3], right + 35, legendY);
            legendY += 20;
        }
        canvas.writePng(png);
    }
}

// minimal: the Pi with 2.7" HAT A on its header (through the splitter), facing
// seat A; HAT B on its leads, back to back, facing seat B. Both HATs hang on
// four M2.5 screws through bosses in their face; their keys reach through
// the face beside the window; the Pi's SD card, power lead and USB/Ethernet
// end are reached through the end walls and under seat A's face.
include <body.scad>

part = "body";

BUILD = [
    ["panel", PANEL_2IN7_HAT],
    ["tilt", 20],  // degrees back from vertical: body.scad says why
    ["depth", 125],  // the foot print, seat to seat: room for the Pi stack and HAT B's leads
    ["t0", 30],  // the HAT's bottom edge up the face: room for the power plug under the Pi
    ["retainer", "bosses"],
    ["pi_stack", true],
    ["buttons", false],
    ["lid", false],
    ["foot", 0],
    ["cable_exit", false],
];

stand(BUILD, part);

// minimal: the Pi with 2.7" HAT A on its header (through the splitter), facing
// seat A; HAT B on its leads, back to back, facing seat B. Both HATs hang on
// four M2.5 screws through bosses in their face; their keys reach through
// the face beside the window; the Pi's SD card, power lead and USB/Ethernet
// end are reached through the end walls and under seat A's face. The stack
// goes in from below, then the base plate closes it.
include <body.scad>

part = "body";

BUILD = [
    ["panel", PANEL_2IN7_HAT],
    ["tilt", 20],  // degrees back from vertical: body.scad says why
    ["depth", 125],  // the foot print, seat to seat: room for the Pi stack and HAT B's leads
    // The HAT's bottom edge up the face: room for the power plug and its bend
    // under the Pi, above the base plate (at 30 they reached 3.8 mm below it).
    ["t0", 36],
    ["retainer", "bosses"],
    ["pi_stack", true],
    ["buttons", false],
    ["foot", 0],
    ["cable_exit", false],
    ["headroom", 10],  // above the HAT's top edge: the Pi's top corners clear the lid's bosses
    // A steel bar [size], [x, y of its middle] on the base plate, under the
    // Pi and HAT B's leads: see hardware/README.md "Feet and a weight".
    ["weight", [[60, 34, 18], [12, 0]]],
];

stand(BUILD, part);

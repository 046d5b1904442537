// touch-serial: two 2.9" modules back to back at the mat's edge, four 12 mm
// keys a seat under each window, the Pico and its MPR121 on the base plate, the
// mat's leads in at the -x end (the mat's edge), the Pico's USB lead and the
// panels' and keys' leads out of the +x end (away from the mat, over the foot).
include <body.scad>

part = "body";

BUILD = [
    ["panel", PANEL_2IN9_MODULE],
    ["tilt", 20],  // degrees back from vertical: body.scad says why
    ["depth", 95],  // the foot print, seat to seat: room for both modules' plugs
    ["t0", 26],  // the module's bottom edge up the face: the keys go under it
    ["retainer", "channel"],
    ["pi_stack", false],
    ["buttons", true],
    ["foot", 40],  // on +x only: the word cards lie on -x
    ["cable_exit", true],
    ["exit", [-20, 10]],  // the +x opening, from y to y: the Pico's lead and the panels'
    ["headroom", 4],
    // A steel bar [size], [x, y of its middle] on the base plate: see
    // hardware/README.md "Feet and a weight".
    ["weight", [[88, 26, 20], [-1, 18]]],
    ["mpr121", [-32, -12, 1]],  // the breakout's middle on the base plate, by the mat's leads; its tie along it
    ["pico", [22, -10]],  // the Pico's middle on the base plate, along x, its USB to +x
    ["pico_lead", 20],  // its micro-USB plug and the lead's bend past the board's end
];

stand(BUILD, part);
